package ratelimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/store"
	"github.com/svckit/svc/modules/telemetry"
)

type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(int)             {}
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }

// Issue 12: the admitted path of the in-memory store allocates nothing.
// Behind svc's telemetry wrapper (every fxsvc app) the component
// middleware and the marker together add no allocation to a request.
func TestAdmittedPathAddsNoAllocation(t *testing.T) {
	l, err := ratelimit.New(ratelimit.Store(store.NewMemory()))
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	limited := newTelemetry(t).Handler(l.Middleware(ratelimit.Limit("1099511627776/h", 1000)(ok)))
	bare := newTelemetry(t).Handler(ok)
	r := httptest.NewRequest(http.MethodGet, "/orders", nil)
	r.RemoteAddr = "203.0.113.7:51234"
	w := &discardWriter{h: http.Header{}}
	serve := func(h http.Handler) func() {
		return func() {
			clear(w.h)
			h.ServeHTTP(w, r)
		}
	}
	serve(limited)()
	if w.h.Get("RateLimit") == "" {
		t.Fatal("the limit did not run: no RateLimit header")
	}
	with, without := testing.AllocsPerRun(200, serve(limited)), testing.AllocsPerRun(200, serve(bare))
	if with != without {
		t.Fatalf("a rate-limited request allocates %v times, the same request without the limit %v: the limiter must add none", with, without)
	}
}

// A telemetry wrapper nested in another (an app served inside another
// app's handler) still finds the outer limiter and the outer root path.
func TestNestedTelemetryWrappersKeepTheLimiter(t *testing.T) {
	l, err := ratelimit.New(ratelimit.Exclude("/api/orders"))
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	inner := newTelemetry(t).Handler(ratelimit.Limit("10/s", 5)(ok))
	h := newTelemetry(t).Handler(l.Middleware(http.StripPrefix("/api", inner)))
	w := &discardWriter{h: http.Header{}}
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/orders", nil))
	if v := w.h.Get("RateLimit"); v != "" {
		t.Fatalf("RateLimit %q: the marker used the default limiter, not the outer one excluding /api/orders", v)
	}
}

// Include and Exclude see the path the component's middleware saw: a mount
// between svc's telemetry wrapper and the component (http.StripPrefix
// added with fxsvc.Wrap, say) rewrites it first.
func TestIncludeSeesThePathBehindAMount(t *testing.T) {
	l, err := ratelimit.New(ratelimit.Include("/api/*"))
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.With(ratelimit.Limit("1/h", 1)).Get("/api/x", func(http.ResponseWriter, *http.Request) {})
	h := newTelemetry(t).Handler(http.StripPrefix("/svc", l.Middleware(r)))
	var got []int
	for range 2 {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/svc/api/x", nil))
		got = append(got, w.Code)
	}
	if got[0] != http.StatusOK || got[1] != http.StatusTooManyRequests {
		t.Fatalf("statuses %v, want [200 429]: ratelimit.Include(\"/api/*\") must match the path behind the mount", got)
	}
}

// newTelemetry is svc's outermost wrapper, which carries the limiter.
func newTelemetry(t testing.TB, opts ...telemetry.Option) *telemetry.Telemetry {
	t.Helper()
	tel, err := telemetry.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return tel
}
