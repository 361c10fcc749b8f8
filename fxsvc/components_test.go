package fxsvc_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/conditional"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/responsecache"
	"github.com/svckit/svc/modules/store"
)

// A route marker whose component the app did not register refuses the app
// at start, naming the route and the option to add: it would otherwise
// work with defaults nobody chose, and `check` would not show it.
func TestAMarkerWithoutItsComponentRefusesTheApp(t *testing.T) {
	ok := func(http.ResponseWriter, *http.Request) {}
	cases := []struct {
		name   string
		marker func(http.Handler) http.Handler
		want   string
	}{
		{"rate limit", ratelimit.Limit("10/s", 20), "ratelimit.Limit on POST /orders needs fxsvc.RateLimits()"},
		{"idempotency", idempotency.Required(), "idempotency.Required on POST /orders needs fxsvc.Idempotency()"},
		{"conditional", conditional.ETags(), "conditional.ETags on POST /orders needs fxsvc.Conditional()"},
		{"response cache", responsecache.Shared(), "responsecache.Shared on POST /orders needs fxsvc.ResponseCache()"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			router := func() *chi.Mux {
				r := chi.NewRouter()
				r.With(c.marker).Post("/orders", ok)
				return r
			}
			err := fx.New(fx.NopLogger, fxsvc.Errors(), fxsvc.Authn(behindtest.Verifier{}), fx.Provide(router),
				fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"))).Err()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to say %q", err, c.want)
			}
		})
	}
	t.Run("on an authn.ServeMux", func(t *testing.T) {
		mux := func() *authn.ServeMux {
			m := authn.NewServeMux()
			m.Handle("GET /reports", ratelimit.Limit("1/s", 1)(http.HandlerFunc(ok)))
			return m
		}
		err := fx.New(fx.NopLogger, fxsvc.Errors(), fxsvc.Authn(behindtest.Verifier{}), fx.Provide(mux), fxsvc.ServeMux(),
			fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"))).Err()
		if want := "ratelimit.Limit on GET /reports needs fxsvc.RateLimits()"; err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("err = %v, want it to say %q", err, want)
		}
	})
}

// The markers find the app's component from what the chain put on the
// request once: the limiter the app registered, with its store.
func TestAMarkerFindsTheAppsComponent(t *testing.T) {
	rates := &countingRates{Rates: store.NewMemory()}
	router := func() *chi.Mux {
		r := chi.NewRouter()
		r.With(authn.Anonymous, ratelimit.Limit("1/h", 1)).Get("/hello", func(http.ResponseWriter, *http.Request) {})
		return r
	}
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Authn(behindtest.Verifier{}), fxsvc.RateLimits(ratelimit.Store(rates)),
		fx.Provide(router), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	for i, want := range []int{200, 429} {
		resp, err := http.Get("http://" + srv.Addr() + "/hello")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("request %d: %d, want %d", i, resp.StatusCode, want)
		}
	}
	if n := rates.calls.Load(); n != 2 {
		t.Fatalf("the app's store was asked %d times, want 2: the marker used another limiter", n)
	}
}

type countingRates struct {
	store.Rates
	calls atomic.Int64
}

func (c *countingRates) Allow(ctx context.Context, k store.Key, r store.Rate) (store.RateResult, error) {
	c.calls.Add(1)
	return c.Rates.Allow(ctx, k, r)
}
