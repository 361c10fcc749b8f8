package fxsvc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// lockedBuffer is Run's stderr: the default logger writes to it from the
// app's goroutines while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// records is every JSON line of s; other lines are skipped.
func records(s string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(s, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil {
			out = append(out, rec)
		}
	}
	return out
}

// find returns the first record whose msg is msg.
func find(s, msg string) (map[string]any, bool) {
	for _, rec := range records(s) {
		if rec["msg"] == msg {
			return rec, true
		}
	}
	return nil, false
}

// running is an app started by fxsvc.Run on a free port.
type running struct {
	stderr *lockedBuffer
	sd     fx.Shutdowner
	done   chan int
}

// runApp starts opts with Run, its stderr captured, and waits for the
// start line.
func runApp(t *testing.T, opts ...fx.Option) *running {
	t.Helper()
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
	r := &running{stderr: &lockedBuffer{}, done: make(chan int, 1)}
	var sd fx.Shutdowner
	opts = append(opts, fx.Populate(&sd))
	go func() { r.done <- fxsvc.Run(nil, &bytes.Buffer{}, r.stderr, opts...) }()
	r.waitFor(t, "svc: started")
	r.sd = sd // written before the start line, read after it
	t.Cleanup(func() { r.stop(t) })
	return r
}

// waitFor waits for a record with msg, failing if the app exits first or
// none comes within a bound generous for a loaded machine.
func (r *running) waitFor(t *testing.T, msg string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if rec, ok := find(r.stderr.String(), msg); ok {
			return rec
		}
		select {
		case code := <-r.done:
			r.done <- code
			t.Fatalf("the app exited (%d) before logging %q:\n%s", code, msg, r.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("no %q line:\n%s", msg, r.stderr.String())
	return nil
}

// stop stops the app and returns its exit status; idempotent.
func (r *running) stop(t *testing.T) int {
	t.Helper()
	if r.sd != nil {
		_ = r.sd.Shutdown()
	}
	select {
	case code := <-r.done:
		r.done <- code
		return code
	case <-time.After(30 * time.Second):
		t.Fatalf("the app did not stop:\n%s", r.stderr.String())
		return -1
	}
}

func (r *running) address(t *testing.T) string {
	t.Helper()
	rec := r.waitFor(t, "svc: started")
	addr, _ := rec["server.address"].(string)
	if addr == "" {
		t.Fatalf("start line without server.address: %v", rec)
	}
	return addr
}

// The silent app: no logger of its own, a handler failing with an
// error no one knows. The 500 is logged, with the error, on Run's stderr.
func TestAnAppWithoutALoggerLogsItsUnhandledErrors(t *testing.T) {
	router := chi.NewRouter()
	router.Method(http.MethodGet, "/orders", svcerrors.Handler(func(http.ResponseWriter, *http.Request) error {
		return errors.New("db down")
	}))
	app := runApp(t, fx.Supply(router), fxsvc.Errors(), fxsvc.Serve())
	resp, err := http.Get("http://" + app.address(t) + "/orders")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", resp.StatusCode)
	}
	rec := app.waitFor(t, "svc: unhandled handler error")
	if rec["error"] != "db down" || rec["level"] != "error" || rec["url.path"] != "/orders" {
		t.Fatalf("the 500's line: %v", rec)
	}
	if code := app.stop(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, app.stderr.String())
	}
	stopped, ok := find(app.stderr.String(), "svc: stopped")
	if !ok || stopped["outcome"] != "clean" || stopped["drain"] == nil || stopped["reason"] == "" {
		t.Fatalf("stop line %v:\n%s", stopped, app.stderr.String())
	}
}

// The second silence: an issuer that cannot be reached gives every
// caller 503; the loader now says why, on the default logger.
func TestAnAppWithoutALoggerLogsKeyFetchFailures(t *testing.T) {
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	t.Cleanup(idp.Close)
	t.Setenv("SVC_AUTHN_ISSUER", idp.URL)
	t.Setenv("SVC_AUTHN_AUDIENCE", "api://orders")
	app := runApp(t, fx.Supply(chi.NewRouter()), fxsvc.Authn(nil), fxsvc.Serve())
	rec := app.waitFor(t, "signing keys not loaded; retrying")
	if failure, _ := rec["failure"].(string); rec["level"] != "error" || !strings.HasPrefix(failure, "discovery") {
		t.Fatalf("the failure's line: %v", rec)
	}
}

// An app's own logger wins: nothing goes to stderr, the 500 goes to it.
func TestTheAppsOwnLoggerWins(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	router := chi.NewRouter()
	router.Method(http.MethodGet, "/", svcerrors.Handler(func(http.ResponseWriter, *http.Request) error {
		return errors.New("db down")
	}))
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
	var sd fx.Shutdowner
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- fxsvc.Run(nil, &bytes.Buffer{}, stderr, fx.Supply(zap.New(core), router), fxsvc.Errors(), fxsvc.Serve(),
			fx.Populate(&sd))
	}()
	var addr string
	for deadline := time.Now().Add(20 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if started := logs.FilterMessage("svc: started").All(); len(started) > 0 {
			addr, _ = started[0].ContextMap()["server.address"].(string)
		}
	}
	if addr == "" {
		t.Fatalf("no start line on the app's logger: %v; stderr %q", logs.All(), stderr.String())
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_ = sd.Shutdown()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if n := logs.FilterMessage("svc: unhandled handler error").Len(); n != 1 {
		t.Fatalf("%d unhandled-error lines on the app's logger: %v", n, logs.All())
	}
	if stderr.String() != "" {
		t.Fatalf("stderr %q, want nothing: the app's logger wins", stderr.String())
	}
}

// The start line says where the app listens, which components are active
// and how they are set up, with every secret as ***.
func TestTheStartLineListsComponentsAndHidesSecrets(t *testing.T) {
	collector := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(collector.Close)
	idp := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(idp.Close)
	for k, v := range map[string]string{
		"SVC_METRICS_EXPORTER":            "otlp-http",
		"SVC_METRICS_ENDPOINT":            collector.URL,
		"SVC_METRICS_BASIC_AUTH_USERNAME": "svc",
		"SVC_METRICS_BASIC_AUTH_PASSWORD": "hunter2-metrics",
		"SVC_METRICS_EXPORT_INTERVAL":     "1h",
		"SVC_OAUTHCLIENT_TOKEN_ENDPOINT":  "http://127.0.0.1:1/token",
		"SVC_OAUTHCLIENT_CLIENT_ID":       "orders",
		"SVC_OAUTHCLIENT_CLIENT_SECRET":   "hunter2-oauth",
		"SVC_AUTHN_ISSUER":                idp.URL,
		"SVC_AUTHN_AUDIENCE":              "api://orders",
		"SVC_LOG_LEVEL":                   "Debug",
	} {
		t.Setenv(k, v)
	}
	app := runApp(t, fx.Supply(chi.NewRouter()), fxsvc.Errors(), fxsvc.Authn(nil), fxsvc.Metrics(),
		fxsvc.OAuthClient(), fxsvc.Health(), fxsvc.Serve())
	rec := app.waitFor(t, "svc: started")
	if got := rec["components"]; !equalJSON(got, []any{"authn", "errors", "health", "http", "metrics", "oauthclient", "telemetry"}) {
		t.Errorf("components %v", got)
	}
	cfg, _ := rec["config"].(map[string]any)
	want := map[string]any{
		"log":         map[string]any{"level": "debug", "format": "json"},
		"errors":      map[string]any{"format": "rfc9457"},
		"oauthclient": map[string]any{"token_endpoint": "http://127.0.0.1:1/token", "client_id": "orders"},
	}
	for k, v := range want {
		if !equalJSON(cfg[k], v) {
			t.Errorf("config.%s = %v, want %v", k, cfg[k], v)
		}
	}
	if a, _ := cfg["authn"].(map[string]any); a == nil || !equalJSON(a["issuers"], []any{idp.URL}) {
		t.Errorf("config.authn = %v", cfg["authn"])
	}
	m, _ := cfg["metrics"].(map[string]any)
	if m["exporter"] != "otlp-http" || m["basic_auth_password"] != "***" || m["export_interval"] != "1h0m0s" ||
		m["endpoint"] != collector.URL+"/v1/metrics" {
		t.Errorf("config.metrics = %v", m)
	}
	if h, _ := cfg["http"].(map[string]any); h["read_timeout"] != "30s" || h["drain_timeout"] != "8s" {
		t.Errorf("config.http = %v", cfg["http"])
	}
	app.stop(t)
	if all := app.stderr.String(); strings.Contains(all, "hunter2") {
		t.Fatalf("a secret reached the log:\n%s", all)
	}
}

func equalJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// A stop that fails says so in the stop line, at error level.
func TestTheStopLineSaysAStopFailed(t *testing.T) {
	failing := fx.Invoke(func(lc fx.Lifecycle) {
		lc.Append(fx.StopHook(func() error { return errors.New("queue flush failed") }))
	})
	app := runApp(t, fx.Supply(chi.NewRouter()), failing, fxsvc.Serve())
	if code := app.stop(t); code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, app.stderr.String())
	}
	rec, ok := find(app.stderr.String(), "svc: stopped")
	cause, _ := rec["error"].(string)
	if !ok || rec["level"] != "error" || rec["outcome"] != "failed" ||
		!strings.Contains(cause, "queue flush failed") || rec["exit_code"] != float64(1) {
		t.Fatalf("stop line %v:\n%s", rec, app.stderr.String())
	}
}

// net/http's own error lines (a handler's panic, a TLS handshake that
// fails) go to the app's logger, not to the standard library's logger,
// whose plain-text lines would break the one-JSON-object-a-line stderr.
func TestTheServersOwnErrorsGoToTheLogger(t *testing.T) {
	var std lockedBuffer
	log.SetOutput(&std)
	defer log.SetOutput(os.Stderr)
	core, logs := observer.New(zap.InfoLevel)
	router := chi.NewRouter()
	router.Get("/panic", func(http.ResponseWriter, *http.Request) { panic("boom") })
	app, srv := startApp(t, fx.Supply(zap.New(core), router), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	if _, err := http.Get("http://" + srv.Addr() + "/panic"); err == nil {
		t.Fatal("a panicking handler answered")
	}
	app.RequireStop()
	if std.String() != "" {
		t.Errorf("the standard logger got %q", std.String())
	}
	var found bool
	for _, e := range logs.All() {
		found = found || strings.Contains(e.Message, "panic serving")
	}
	if !found {
		t.Fatalf("no panic line on the app's logger: %v", logs.All())
	}
}
