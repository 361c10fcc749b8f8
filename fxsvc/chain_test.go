package fxsvc_test

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/rs/cors"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/behindtest"
)

// The chain is the same in every process: fx hands value groups over
// shuffled, so the app is built 20 times and its chain compared.
func TestTheChainIsTheSameInEveryProcess(t *testing.T) {
	want := []string{"telemetry", "errors", "tenant", "cors", "health",
		"components", "audit", "trace-in", "gate", "router"}
	for i := range 20 {
		var srv *fxsvc.Server
		app := fx.New(fx.NopLogger, fxsvc.Errors(), fxsvc.CORS(cors.Options{AllowedOrigins: []string{"https://app.test"}}),
			fxsvc.Health(), fxsvc.Authn(behindtest.Verifier{}), fxsvc.RateLimits(), fxsvc.Idempotency(),
			fxsvc.Conditional(), fxsvc.ResponseCache(),
			fxsvc.Wrap("trace-in", fxsvc.Before("gate"), pass),
			fxsvc.Wrap("tenant", fxsvc.After("errors"), pass),
			fxsvc.Wrap("audit", fxsvc.Before("gate"), pass),
			fx.Provide(func() *chi.Mux { return chi.NewRouter() }),
			fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")), fx.Populate(&srv))
		if err := app.Err(); err != nil {
			t.Fatal(err)
		}
		if got := srv.Chain(); !slices.Equal(got, want) {
			t.Fatalf("build %d: chain %q, want %q", i, got, want)
		}
	}
}

func pass(h http.Handler) http.Handler { return h }

// Regression: issue 32 item 5.
// The chain is the order written in fxsvc/chain.go, every stage there, with
// an app's wrapper before and after each; a wrapper keeps its place when
// the app registers none of svc's stages.
func TestTheChainIsInWrittenOrderWithAWrapperAtEveryPlace(t *testing.T) {
	var wraps []fx.Option
	for _, s := range []string{"telemetry", "errors", "cors", "health", "components", "gate"} {
		wraps = append(wraps, fxsvc.Wrap("before-"+s, fxsvc.Before(s), pass))
		if s != "gate" {
			wraps = append(wraps, fxsvc.Wrap("after-"+s, fxsvc.After(s), pass))
		}
	}
	every := []fx.Option{fxsvc.Errors(), fxsvc.CORS(cors.Options{AllowedOrigins: []string{"https://app.test"}}),
		fxsvc.Health(), fxsvc.Authn(behindtest.Verifier{}), fxsvc.RateLimits(), fxsvc.Idempotency(),
		fxsvc.Conditional(), fxsvc.ResponseCache()}
	for _, tc := range []struct {
		name string
		opts []fx.Option
		want []string
	}{
		{"every stage", every, []string{
			"before-telemetry", "telemetry", "after-telemetry",
			"before-errors", "errors", "after-errors",
			"before-cors", "cors", "after-cors",
			"before-health", "health", "after-health",
			"before-components", "components", "after-components",
			"before-gate", "gate", "router"}},
		{"svc's own stages left out", nil, []string{
			"before-telemetry", "telemetry", "after-telemetry",
			"before-errors", "after-errors", "before-cors", "after-cors", "before-health", "after-health",
			"before-components", "after-components", "before-gate", "router"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var srv *fxsvc.Server
			opts := append(append(append([]fx.Option{fx.NopLogger}, tc.opts...), wraps...),
				fx.Provide(func() *chi.Mux { return chi.NewRouter() }),
				fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")), fx.Populate(&srv))
			if err := fx.New(opts...).Err(); err != nil {
				t.Fatal(err)
			}
			if got := srv.Chain(); !slices.Equal(got, tc.want) {
				t.Fatalf("chain %q\nwant  %q", got, tc.want)
			}
		})
	}
}

// An app's wrapper runs where it is placed: Before("gate") sees a request
// the gate refuses, the error format's body is already in place, and the
// request ID is already set.
func TestAnAppWrapperRunsWhereItIsPlaced(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	note := func(name string) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				seen = append(seen, name+":"+w.Header().Get("X-Request-ID"))
				mu.Unlock()
				next.ServeHTTP(w, r)
			})
		}
	}
	router := func() *chi.Mux {
		r := chi.NewRouter()
		r.Get("/me", func(http.ResponseWriter, *http.Request) {})
		return r
	}
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Authn(behindtest.Verifier{}),
		fxsvc.Wrap("outer", fxsvc.Before("errors"), note("outer")),
		fxsvc.Wrap("inner", fxsvc.Before("gate"), note("inner")),
		fx.Provide(router), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	resp, err := http.Get("http://" + srv.Addr() + "/me")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("no token: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	id := resp.Header.Get("X-Request-ID")
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"outer:" + id, "inner:" + id}; id == "" || !slices.Equal(seen, want) {
		t.Fatalf("wrappers saw %q, want %q", seen, want)
	}
}

func TestWrapRefusesWhatItCannotPlace(t *testing.T) {
	cases := []struct {
		name string
		opts []fx.Option
		want string
	}{
		{"unknown stage", []fx.Option{fxsvc.Wrap("x", fxsvc.Before("auth"), pass)},
			`fxsvc.Wrap("x", fxsvc.Before("auth")): no such stage: place it before or after one of telemetry, errors, cors, health, components, gate`},
		{"inside the gate", []fx.Option{fxsvc.Wrap("x", fxsvc.After("gate"), pass)},
			`fxsvc.Wrap("x", fxsvc.After("gate")): the gate reads the router's routes`},
		{"a name twice", []fx.Option{fxsvc.Wrap("x", fxsvc.Before("gate"), pass), fxsvc.Wrap("x", fxsvc.After("errors"), pass)},
			"the name is given twice"},
		{"no name", []fx.Option{fxsvc.Wrap("", fxsvc.Before("gate"), pass)}, "a wrapper needs a name"},
		{"nil wrapper", []fx.Option{fxsvc.Wrap("x", fxsvc.Before("gate"), nil)}, "the wrapper is nil"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := append([]fx.Option{fx.NopLogger, fx.Provide(func() *chi.Mux { return chi.NewRouter() }),
				fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"))}, c.opts...)
			err := fx.New(opts...).Err()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to say %q", err, c.want)
			}
		})
	}
}

// CORS wraps health, on purpose: a probe (no Origin) passes through
// untouched, and a status page on another origin may read /livez.
func TestCORSWrapsHealth(t *testing.T) {
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Health(),
		fxsvc.CORS(cors.Options{AllowedOrigins: []string{"https://status.test"}}),
		fx.Provide(func() *chi.Mux { return chi.NewRouter() }), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	for _, origin := range []string{"", "https://status.test"} {
		req, _ := http.NewRequest("GET", "http://"+srv.Addr()+"/livez", nil)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Access-Control-Allow-Origin"); resp.StatusCode != 200 || got != origin {
			t.Fatalf("Origin %q: %d, Access-Control-Allow-Origin %q", origin, resp.StatusCode, got)
		}
	}
}
