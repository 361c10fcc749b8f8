package authn_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/telemetry"
)

// fakeVerifier maps tokens to callers: fast gate tests without keys. The
// real verifiers are tested on their own and end to end.
type fakeVerifier struct {
	callers map[string]bearer.Principal
	errs    map[string]error
	calls   int
}

func newFake() *fakeVerifier {
	return &fakeVerifier{
		callers: map[string]bearer.Principal{
			"alice-token": {Subject: "alice", Issuer: "https://idp.test", Scopes: bearer.NewScopes("read"), Authenticated: true},
			"admin-token": {Subject: "root", Issuer: "https://idp.test", Scopes: bearer.NewScopes("read", "admin"), Authenticated: true},
		},
		errs: map[string]error{
			"expired-token": &bearer.TokenError{Reason: bearer.ReasonExpired, Signed: true, Principal: bearer.Principal{Subject: "alice"}},
			"forged-token":  &bearer.TokenError{Reason: bearer.ReasonSignature},
			"nokeys-token":  bearer.ErrKeysUnavailable,
			"broken-token":  io.ErrUnexpectedEOF,
		},
	}
}

func (f *fakeVerifier) Verify(_ context.Context, token string) (bearer.Principal, error) {
	f.calls++
	if err, ok := f.errs[token]; ok {
		return bearer.Principal{}, err
	}
	if p, ok := f.callers[token]; ok {
		return p, nil
	}
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

func (f *fakeVerifier) Issuers() []string { return []string{"https://idp.test"} }

func ok(w http.ResponseWriter, r *http.Request) {
	p, authed := authn.PrincipalFrom(r.Context())
	if authed {
		_, _ = io.WriteString(w, "hello "+p.Subject)
		return
	}
	_, _ = io.WriteString(w, "hello stranger")
}

// exampleRouter is a chi app with every kind of route the gate tells apart.
func exampleRouter() *chi.Mux {
	r := chi.NewRouter()
	r.Get("/healthz", ok)
	r.With(authn.Anonymous).Get("/hello", ok)
	r.Post("/hello", ok) // same path, other method: authenticated
	r.Get("/me", ok)
	r.With(authn.Require("admin")).Get("/admin", ok)
	r.Route("/reports", func(r chi.Router) {
		r.Use(authn.Require("read"))
		r.Get("/", ok)
		r.With(authn.Require("admin")).Get("/secret", ok)
	})
	sub := chi.NewRouter()
	sub.With(authn.Anonymous).Get("/open", ok)
	sub.Get("/closed", ok)
	r.Mount("/sub", sub)
	r.Mount("/files", http.StripPrefix("/files", http.FileServer(http.Dir("testdata-none"))))
	r.Get("/docs/*", ok)
	return r
}

type served struct {
	status int
	header http.Header
	body   string
	json   map[string]any
}

func gateServer(t *testing.T, res *svcerrors.Responses, router http.Handler, v bearer.Verifier, opts ...authn.Option) *httptest.Server {
	t.Helper()
	return gateServerBehind(t, nil, res, router, v, opts...)
}

// gateServerBehind is gateServer behind svc's telemetry wrapper trusting
// the proxies cidrs (none: no wrapper, as in a hand-built stack).
func gateServerBehind(t *testing.T, cidrs []string, res *svcerrors.Responses, router http.Handler, v bearer.Verifier, opts ...authn.Option) *httptest.Server {
	t.Helper()
	g, err := authn.New(v, opts...)
	if err != nil {
		t.Fatal(err)
	}
	h, err := g.Handler(router)
	if err != nil {
		t.Fatal(err)
	}
	if res != nil {
		h = res.Middleware(h)
	}
	srv := httptest.NewServer(trusting(t, cidrs, h))
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, srv *httptest.Server, method, path string, header http.Header, body string) served {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	return send(t, &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, req)
}

// send sends req with client and reads the answer.
func send(t *testing.T, client *http.Client, req *http.Request) served {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	s := served{status: resp.StatusCode, header: resp.Header, body: string(b)}
	_ = json.Unmarshal(b, &s.json)
	return s
}

func bearerHeader(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }

func httptestServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// newPlainChi is an app with no anonymous route.
func newPlainChi() *chi.Mux {
	r := chi.NewRouter()
	r.Get("/me", ok)
	return r
}

// trusting puts h behind svc's telemetry wrapper believing the forwarding
// headers of the proxies cidrs; with none, h is served as it is.
func trusting(t *testing.T, cidrs []string, h http.Handler) http.Handler {
	t.Helper()
	if cidrs == nil {
		return h
	}
	tel, err := telemetry.New(telemetry.TrustedProxies(cidrs...))
	if err != nil {
		t.Fatal(err)
	}
	return tel.Handler(h)
}

// isInstallError reports whether err is the gate's refusal of a route set-up
// at install: it names the route, "authn: route METHOD PATTERN …".
func isInstallError(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "authn: route ")
}

// wantAnswer checks got's status and WWW-Authenticate challenges and, on a
// refusal, its reason; it reports whether got is a refusal, whose body the
// caller may check further.
func wantAnswer(t *testing.T, got served, status int, challenges []string, reason string) bool {
	t.Helper()
	if got.status != status {
		t.Fatalf("status %d, want %d: %s", got.status, status, got.body)
	}
	if c := got.header.Values("WWW-Authenticate"); strings.Join(c, " | ") != strings.Join(challenges, " | ") {
		t.Errorf("WWW-Authenticate = %q, want %q", c, challenges)
	}
	if status == http.StatusOK {
		return false
	}
	if r, _ := got.json["reason"].(string); r != reason {
		t.Errorf("reason %q, want %q: %s", r, reason, got.body)
	}
	return true
}
