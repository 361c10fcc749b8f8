package fxsvc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// switchVerifier is a verifier whose readiness the test sets.
type switchVerifier struct{ ready atomic.Bool }

func (v *switchVerifier) Verify(context.Context, string) (bearer.Principal, error) {
	return bearer.Principal{}, errors.New("no token verifies here")
}

func (v *switchVerifier) Ready() error {
	if v.ready.Load() {
		return nil
	}
	return bearer.ErrKeysUnavailable
}

func okRouter() *chi.Mux {
	r := chi.NewRouter()
	r.With(authn.Anonymous).Get("/ok", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "fine") })
	r.Get("/private", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "secret") })
	return r
}

type answer struct {
	status int
	header http.Header
	body   string
}

func send(t *testing.T, method, url string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

// notReady checks a 503 not-ready answer in RFC 9457 and returns its
// checks member.
func notReady(t *testing.T, a answer) []string {
	t.Helper()
	if a.status != 503 || a.header.Get("Content-Type") != svcerrors.ProblemMediaType ||
		a.header.Get("Cache-Control") != "no-store" || a.header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("want a 503 problem: %d %v %s", a.status, a.header, a.body)
	}
	var p struct {
		Type   string   `json:"type"`
		Detail string   `json:"detail"`
		Checks []string `json:"checks"`
	}
	if err := json.Unmarshal([]byte(a.body), &p); err != nil {
		t.Fatalf("not JSON: %s", a.body)
	}
	if !strings.HasSuffix(p.Type, "#not-ready") {
		t.Fatalf("type %q", p.Type)
	}
	for _, c := range p.Checks {
		if !strings.Contains(p.Detail, c) {
			t.Fatalf("the detail %q does not name %q", p.Detail, c)
		}
	}
	return p.Checks
}

func waitStatus(t *testing.T, url string, status int) answer {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		a := send(t, "GET", url)
		if a.status == status {
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s stayed %d %s, want %d", url, a.status, a.body, status)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestReadyzAnswers503UntilTheVerifierHoldsKeysThen200(t *testing.T) {
	v := &switchVerifier{}
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Authn(v), fxsvc.Health(),
		fx.Supply(okRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	base := "http://" + srv.Addr()

	if got := notReady(t, send(t, "GET", base+"/readyz")); len(got) != 1 || got[0] != "authn" {
		t.Fatalf("checks %v, want [authn]", got)
	}
	// Liveness does not wait for readiness, and neither needs a token
	// although the gate guards every other path.
	if a := send(t, "GET", base+"/livez"); a.status != 200 || a.body != "ok\n" || a.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("/livez: %d %v %q", a.status, a.header, a.body)
	}
	if a := send(t, "GET", base+"/private"); a.status != 401 {
		t.Fatalf("the gate is not in place behind the probes: %d", a.status)
	}
	v.ready.Store(true)
	if a := send(t, "GET", base+"/readyz"); a.status != 200 || a.body != "ok\n" || a.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("/readyz once ready: %d %v %q", a.status, a.header, a.body)
	}
	if a := send(t, "HEAD", base+"/readyz"); a.status != 200 {
		t.Fatalf("HEAD /readyz: %d", a.status)
	}
}

// A real JWTVerifier whose identity provider is down at start: /readyz
// turns 200 only once the keys arrive.
func TestReadyzFollowsARealVerifiersKeys(t *testing.T) {
	iss := authntest.NewIssuer(t)
	var up atomic.Bool
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if !up.Load() {
			return &http.Response{StatusCode: 503, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}, Request: r}, nil
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	v := iss.Discover(bearer.HTTPClient(hc), bearer.RetryInterval(10*time.Millisecond), bearer.Logger(zap.NewNop()))
	app, srv := startApp(t, fxsvc.Authn(v), fxsvc.Health(), fx.Supply(okRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	base := "http://" + srv.Addr()
	// No error format registered: the fallback is RFC 9457.
	if got := notReady(t, send(t, "GET", base+"/readyz")); len(got) != 1 || got[0] != "authn" {
		t.Fatalf("checks %v", got)
	}
	up.Store(true)
	waitStatus(t, base+"/readyz", 200)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestReadyzRunsTheAppsChecksAndNeverSendsTheirErrors(t *testing.T) {
	var dbUp atomic.Bool
	core, logs := observer.New(zap.InfoLevel)
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Health(), fx.Supply(okRouter(), zap.New(core)),
		readiness("db", func(context.Context) error {
			if dbUp.Load() {
				return nil
			}
			return errors.New("dial postgres://app:hunter2@db:5432 refused")
		}),
		readiness("cache", func(context.Context) error { return nil }),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	base := "http://" + srv.Addr()
	for range 3 {
		a := send(t, "GET", base+"/readyz")
		if got := notReady(t, a); len(got) != 1 || got[0] != "db" {
			t.Fatalf("checks %v", got)
		}
		if strings.Contains(a.body, "hunter2") || strings.Contains(a.body, "postgres") {
			t.Fatalf("a check's error reached the wire: %s", a.body)
		}
	}
	dbUp.Store(true)
	waitStatus(t, base+"/readyz", 200)
	send(t, "GET", base+"/readyz")
	// One record per change, however many probes: the error is in the log.
	var notReadyLogs, readyLogs int
	for _, e := range logs.All() {
		switch e.Message {
		case "svc: not ready":
			notReadyLogs++
			if !strings.Contains(e.ContextMap()["error.db"].(string), "refused") {
				t.Errorf("the log lacks the check's error: %v", e.ContextMap())
			}
		case "svc: ready":
			readyLogs++
		}
	}
	if notReadyLogs != 1 || readyLogs != 1 {
		t.Fatalf("logged not ready %d times and ready %d times, want once each", notReadyLogs, readyLogs)
	}
}

func TestReadyzInTheTMFFormat(t *testing.T) {
	app, srv := startApp(t, fxsvc.TMFErrors("SHOP", svcerrors.KindDocs), fxsvc.Health(), fx.Supply(okRouter()),
		readiness("queue", func(context.Context) error { return errors.New("down") }),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	a := send(t, "GET", "http://"+srv.Addr()+"/readyz")
	if a.status != 503 || a.header.Get("Content-Type") != "application/json" ||
		!strings.Contains(a.body, `"code":"SHOP-NOT-READY"`) || !strings.Contains(a.body, "Not ready: queue.") {
		t.Fatalf("%d %v %s", a.status, a.header, a.body)
	}
}

func TestProbesRefuseOtherMethodsAndLeaveOtherPathsToTheRouter(t *testing.T) {
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Health(), fx.Supply(okRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	base := "http://" + srv.Addr()
	for _, p := range []string{"/livez", "/readyz"} {
		a := send(t, "POST", base+p)
		if a.status != 405 || a.header.Get("Allow") != "GET, HEAD" || a.header.Get("Content-Type") != svcerrors.ProblemMediaType {
			t.Fatalf("POST %s: %d %v %s", p, a.status, a.header, a.body)
		}
	}
	if a := send(t, "GET", base+"/readyz/more"); a.status != 404 {
		t.Fatalf("/readyz/more: %d", a.status)
	}
	if a := send(t, "GET", base+"/ok"); a.status != 200 || a.body != "fine" {
		t.Fatalf("/ok: %d %s", a.status, a.body)
	}
	// With no check at all, ready at once.
	if a := send(t, "GET", base+"/readyz?verbose=1"); a.status != 200 {
		t.Fatalf("/readyz: %d %s", a.status, a.body)
	}
}

// readiness adds a check that needs nothing from the graph.
func readiness(name string, check func(context.Context) error) fx.Option {
	return fxsvc.Readiness(func() fxsvc.ReadinessCheck { return fxsvc.ReadinessCheck{Name: name, Check: check} })
}

// A check built from a value of the graph runs on every probe.
func TestReadinessTakesItsCheckFromTheGraph(t *testing.T) {
	type db struct{ up atomic.Bool }
	d := &db{}
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Health(), fx.Supply(okRouter(), d),
		fxsvc.Readiness(func(d *db) (fxsvc.ReadinessCheck, error) {
			return fxsvc.ReadinessCheck{Name: "db", Check: func(context.Context) error {
				if !d.up.Load() {
					return errors.New("down")
				}
				return nil
			}}, nil
		}),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	base := "http://" + srv.Addr()
	if got := notReady(t, send(t, "GET", base+"/readyz")); len(got) != 1 || got[0] != "db" {
		t.Fatalf("checks %v", got)
	}
	d.up.Store(true)
	waitStatus(t, base+"/readyz", 200)
}

func TestHealthRefusesBadCheckNames(t *testing.T) {
	ok := func(context.Context) error { return nil }
	for _, tc := range []struct {
		name string
		opts []fx.Option
		want string
	}{
		{"empty", []fx.Option{readiness("", ok)}, `check name ""`},
		{"upper case", []fx.Option{readiness("DB", ok)}, `check name "DB"`},
		{"space", []fx.Option{readiness("my db", ok)}, `check name "my db"`},
		{"reserved", []fx.Option{readiness("shutdown", ok)}, `check name "shutdown"`},
		{"twice", []fx.Option{readiness("db", ok), readiness("db", ok)}, `two readiness checks are named "db"`},
		{"clashes with authn", []fx.Option{fxsvc.Authn(&switchVerifier{}), readiness("authn", ok)}, `named "authn"`},
		{"nil func", []fx.Option{readiness("db", nil)}, `"db" has no Check function`},
		{"not a constructor", []fx.Option{fxsvc.Readiness(ok)}, "fxsvc.Readiness: got func(context.Context) error, want a function returning an fxsvc.ReadinessCheck"},
		{"nil constructor", []fx.Option{fxsvc.Readiness(nil)}, "fxsvc.Readiness: got <nil>"},
		{"health twice", []fx.Option{fxsvc.Health()}, "only one health component"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := append([]fx.Option{fx.NopLogger, fxsvc.Health(), fx.Supply(okRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"))}, tc.opts...)
			err := fx.New(opts...).Err()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestCheckListsTheProbes(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []fx.Option
		mode string
	}{
		{"behind a gate: excluded", []fx.Option{fxsvc.Authn(&switchVerifier{})}, "excluded"},
		{"no gate: unprotected", nil, "unprotected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			opts := append([]fx.Option{fxsvc.Health(), fx.Supply(okRouter()), fxsvc.Serve()}, tc.opts...)
			if code := fxsvc.Run([]string{"check"}, &out, &errOut, opts...); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			for _, p := range []string{"/livez", "/readyz"} {
				if !lineWith(out.String(), "GET", p, tc.mode) {
					t.Fatalf("no %s line for %s:\n%s", tc.mode, p, out.String())
				}
			}
		})
	}
}

func lineWith(out string, fields ...string) bool {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= len(fields) && slicesEqual(f[:len(fields)], fields) {
			return true
		}
	}
	return false
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The outbound client's authorization server is down at start: /readyz
// names it until discovery succeeds, which probes alone bring about.
func TestReadyzWaitsForTheOutboundClientsDiscovery(t *testing.T) {
	var up atomic.Bool
	var issuer string
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() || !strings.HasPrefix(r.URL.Path, "/.well-known/") {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"issuer":"`+issuer+`","token_endpoint":"`+issuer+`/token"}`)
	}))
	defer idp.Close()
	issuer = idp.URL
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Health(), fx.Supply(okRouter(), zap.NewNop()),
		fxsvc.OAuthClient(oauthclient.WithoutEnv(), oauthclient.Issuer(idp.URL), oauthclient.ClientID("svc"),
			oauthclient.ClientSecret(secret.String("s3cret")), oauthclient.RetryInterval(10*time.Millisecond)),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	base := "http://" + srv.Addr()
	if got := notReady(t, send(t, "GET", base+"/readyz")); len(got) != 1 || got[0] != "oauthclient" {
		t.Fatalf("checks %v, want [oauthclient]", got)
	}
	up.Store(true)
	waitStatus(t, base+"/readyz", 200)
}

// Under Run, /readyz fails (check "starting") until every start hook ran:
// the server listens from its own hook, before the components after it
// have started, and must not draw traffic to them.
func TestReadyzFailsUntilRunHasStartedTheApp(t *testing.T) {
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
	var srv *fxsvc.Server
	var during []string
	afterStatus := make(chan int, 1)
	var errOut bytes.Buffer
	code := fxsvc.Run(nil, io.Discard, &errOut, fx.Supply(zap.NewNop(), okRouter()), fxsvc.Errors(), fxsvc.Health(),
		fxsvc.Serve(), fx.Populate(&srv),
		fx.Invoke(func(lc fx.Lifecycle, sd fx.Shutdowner) {
			lc.Append(fx.StartHook(func() {
				during = []string{"(answered 200)"}
				if a := send(t, "GET", "http://"+srv.Addr()+"/readyz"); a.status != http.StatusOK {
					during = notReady(t, a)
				}
				go func() {
					// Run marks the app started once Start returns: poll
					// until ready (or give up), then stop.
					status := 0
					for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
						if resp, err := http.Get("http://" + srv.Addr() + "/readyz"); err == nil {
							resp.Body.Close()
							if status = resp.StatusCode; status == http.StatusOK {
								break
							}
						}
					}
					afterStatus <- status
					_ = sd.Shutdown()
				}()
			}))
		}))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !slices.Equal(during, []string{"starting"}) {
		t.Errorf("/readyz during start: failing %v, want [starting]", during)
	}
	if got := <-afterStatus; got != http.StatusOK {
		t.Errorf("/readyz after start: %d, want 200", got)
	}
}

// The probes are routes of their own in the request telemetry: their
// records and series carry http.route /livez or /readyz, not "no route"
// beside every mistyped URL's 404s.
func TestProbesAreNamedRoutesInTheAccessLog(t *testing.T) {
	t.Setenv("SVC_ACCESS_LOG", "")
	core, logs := observer.New(zap.InfoLevel)
	app, srv := startApp(t, fx.Supply(zap.New(core)), fxsvc.Errors(), fxsvc.Health(), fxsvc.AccessLog(),
		fx.Supply(okRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	for _, p := range []string{"/livez", "/readyz"} {
		logs.TakeAll()
		if a := send(t, "GET", "http://"+srv.Addr()+p); a.status != http.StatusOK {
			t.Fatalf("%s: %d", p, a.status)
		}
		recs := logs.FilterLoggerName("svc.http.access").All()
		if len(recs) != 1 || recs[0].ContextMap()["http.route"] != p || recs[0].Message != "GET "+p+" 200" {
			t.Errorf("%s: access records %v", p, recs)
		}
	}
}
