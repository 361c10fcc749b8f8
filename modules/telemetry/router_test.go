package telemetry_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/telemetry"
)

// Without a gate, Router names the route from the router itself.
func TestRouterNamesRoutesWithoutAGate(t *testing.T) {
	cr := chi.NewRouter()
	cr.Get("/items/{id}", func(http.ResponseWriter, *http.Request) {})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{id}", func(http.ResponseWriter, *http.Request) {})
	for _, tc := range []struct {
		name   string
		router http.Handler
	}{{"chi", cr}, {"ServeMux", mux}} {
		t.Run(tc.name, func(t *testing.T) {
			core, logs := observer.New(zapcore.InfoLevel)
			h := newTelemetry(t, telemetry.AccessLog(zap.New(core)), telemetry.Router(tc.router)).Handler(tc.router)
			for path, want := range map[string]any{"/items/9": "/items/{id}", "/other": nil} {
				logs.TakeAll()
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
				if got := fieldsOf(only(t, logs, telemetry.AccessLogger))["http.route"]; got != want {
					t.Errorf("%s: http.route %v, want %v", path, got, want)
				}
			}
		})
	}
}

// A handler that panics is recorded as the 500 it stands for, and the
// panic goes on to net/http.
func TestPanicIsRecordedAndRepanicked(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	h := newTelemetry(t, telemetry.AccessLog(zap.New(core))).Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic(http.ErrAbortHandler)
	}))
	func() {
		defer func() {
			if p := recover(); p != http.ErrAbortHandler {
				t.Errorf("recovered %v, want the handler's panic", p)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	}()
	if got := fieldsOf(only(t, logs, telemetry.AccessLogger))["http.response.status_code"]; got != int64(500) {
		t.Fatalf("status %v, want 500", got)
	}
}

// Behind the gate on a ServeMux, the route is the one the gate finds.
func TestGateOnServeMuxNamesTheRoute(t *testing.T) {
	mux := authn.NewServeMux()
	mux.HandleFunc("GET /items/{id}", func(http.ResponseWriter, *http.Request) {})
	g, err := authn.New(fakeVerifier{})
	if err != nil {
		t.Fatal(err)
	}
	gated, err := g.Handler(mux)
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zapcore.InfoLevel)
	h := newTelemetry(t, telemetry.AccessLog(zap.New(core))).Handler(gated)
	for _, tc := range []struct {
		token string
		want  any
	}{{"alice-token", "/items/{id}"}, {"", "/items/{id}"}} {
		logs.TakeAll()
		r := httptest.NewRequest(http.MethodGet, "/items/3", nil)
		if tc.token != "" {
			r.Header = bearerHeader(tc.token)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		if got := fieldsOf(only(t, logs, telemetry.AccessLogger))["http.route"]; got != tc.want {
			t.Errorf("token %q: http.route %v, want %v", tc.token, got, tc.want)
		}
	}
}
