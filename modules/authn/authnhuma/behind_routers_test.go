package authnhuma_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/conditional"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/responsecache"
	"github.com/svckit/svc/modules/store"
)

// countingStore counts every operation of every component.
type countingStore struct {
	m   *store.Memory
	ops atomic.Int64
}

func (s *countingStore) Allow(ctx context.Context, k store.Key, r store.Rate) (store.RateResult, error) {
	s.ops.Add(1)
	return s.m.Allow(ctx, k, r)
}

func (s *countingStore) Claim(ctx context.Context, k store.Key, fp, owner string, lease time.Duration) (store.Claim, error) {
	s.ops.Add(1)
	return s.m.Claim(ctx, k, fp, owner, lease)
}

func (s *countingStore) Complete(ctx context.Context, k store.Key, owner string, resp store.Response, ttl time.Duration) error {
	s.ops.Add(1)
	return s.m.Complete(ctx, k, owner, resp, ttl)
}

func (s *countingStore) Renew(ctx context.Context, k store.Key, owner string, lease time.Duration) (bool, error) {
	s.ops.Add(1)
	return s.m.Renew(ctx, k, owner, lease)
}

func (s *countingStore) Release(ctx context.Context, k store.Key, owner string) error {
	s.ops.Add(1)
	return s.m.Release(ctx, k, owner)
}

func (s *countingStore) Get(ctx context.Context, k store.Key) (store.Entry, bool, error) {
	s.ops.Add(1)
	return s.m.Get(ctx, k)
}

func (s *countingStore) Set(ctx context.Context, k store.Key, e store.Entry, ttl time.Duration) error {
	s.ops.Add(1)
	return s.m.Set(ctx, k, e, ttl)
}

func (s *countingStore) Delete(ctx context.Context, k store.Key) error {
	s.ops.Add(1)
	return s.m.Delete(ctx, k)
}

func write(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "max-age=60")
	w.WriteHeader(http.StatusCreated)
}

func read(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "max-age=60")
	_, _ = w.Write([]byte("item"))
}

var (
	writeMarkers = []func(http.Handler) http.Handler{ratelimit.Limit("100/s", 100), idempotency.Required()}
	readMarkers  = []func(http.Handler) http.Handler{ratelimit.Limit("100/s", 100), responsecache.Shared(), conditional.ETags()}
)

func chain(h http.HandlerFunc, mws []func(http.Handler) http.Handler) http.Handler {
	var out http.Handler = h
	for i := len(mws) - 1; i >= 0; i-- {
		out = mws[i](out)
	}
	return out
}

type humaOut struct {
	CacheControl string `header:"Cache-Control"`
	Status       int
}

// The rule every component obeys, on the three routers: a request the
// gate refuses, and one no route answers, reach none of them.
func TestOnEveryRouterARefusedOrUnroutedRequestTouchesNoStore(t *testing.T) {
	routers := map[string]func() http.Handler{
		"chi": func() http.Handler {
			r := chi.NewRouter()
			r.With(writeMarkers...).Post("/orders", write)
			r.With(readMarkers...).Get("/items", read)
			return r
		},
		"ServeMux": func() http.Handler {
			mux := http.NewServeMux()
			mux.Handle("POST /orders", chain(write, writeMarkers))
			mux.Handle("GET /items", chain(read, readMarkers))
			return mux
		},
		"Huma": func() http.Handler {
			r := chi.NewRouter()
			a := authnhuma.NewChi(r, huma.DefaultConfig("Shop", "1.0.0"))
			huma.Post(a, "/orders", func(context.Context, *struct{}) (*humaOut, error) {
				return &humaOut{CacheControl: "max-age=60", Status: http.StatusCreated}, nil
			}, authnhuma.Use(writeMarkers...))
			huma.Get(a, "/items", func(context.Context, *struct{}) (*humaOut, error) {
				return &humaOut{CacheControl: "max-age=60", Status: http.StatusOK}, nil
			}, authnhuma.Use(readMarkers...))
			return r
		},
	}
	for name, build := range routers {
		t.Run(name, func(t *testing.T) {
			s := &countingStore{m: store.NewMemory()}
			l, _ := ratelimit.New(ratelimit.Store(s))
			i, _ := idempotency.New(idempotency.Store(s))
			c, _ := responsecache.New(responsecache.Store(s))
			srv := behindtest.Stack(t, build(), l.Middleware, i.Middleware, c.Middleware)
			for _, q := range []struct {
				method, path, token string
				status              int
			}{
				{"POST", "/orders", "", 401},
				{"POST", "/orders", "forged", 401},
				{"GET", "/items", "", 401},
				{"GET", "/nowhere", behindtest.Alice, 404},
			} {
				resp := behindtest.Do(t, srv, q.method, q.path, q.token, "{}", "Idempotency-Key", "k")
				if _ = behindtest.Body(t, resp); resp.StatusCode != q.status {
					t.Fatalf("%s %s: %d, want %d", q.method, q.path, resp.StatusCode, q.status)
				}
			}
			if n := s.ops.Load(); n != 0 {
				t.Fatalf("refused or unrouted requests made %d store operations", n)
			}
			if resp := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "{}", "Idempotency-Key", "k", "Content-Type", "application/json"); resp.StatusCode != 201 {
				t.Fatalf("admitted write: %d", resp.StatusCode)
			}
			if resp := behindtest.Do(t, srv, "GET", "/items", behindtest.Alice, ""); resp.StatusCode != 200 || resp.Header.Get("ETag") == "" {
				t.Fatalf("admitted read: %d %v", resp.StatusCode, resp.Header)
			}
			// Allow, Claim, Complete; Allow, Get, Get (after the flight join), Set.
			if n := s.ops.Load(); n < 6 {
				t.Fatalf("admitted requests made only %d store operations", n)
			}
		})
	}
}

// A marker put on a chi router's root (r.Use) runs before routing: it
// still leaves a request no route answers alone.
func TestMarkersOnTheRootOfAChiRouterIgnoreUnroutedRequests(t *testing.T) {
	s := &countingStore{m: store.NewMemory()}
	l, _ := ratelimit.New(ratelimit.Store(s))
	i, _ := idempotency.New(idempotency.Store(s))
	c, _ := responsecache.New(responsecache.Store(s))
	r := chi.NewRouter()
	r.Use(ratelimit.Limit("100/s", 100), idempotency.Required(), responsecache.Shared(), conditional.ETags())
	r.Post("/orders", write)
	r.Get("/items", read)
	srv := behindtest.Stack(t, r, l.Middleware, i.Middleware, c.Middleware)
	for _, q := range []struct{ method, path string }{{"POST", "/nowhere"}, {"GET", "/nowhere"}} {
		resp := behindtest.Do(t, srv, q.method, q.path, behindtest.Alice, "{}", "Idempotency-Key", "k")
		if _ = behindtest.Body(t, resp); resp.StatusCode != 404 || resp.Header.Get("RateLimit") != "" || resp.Header.Get("ETag") != "" {
			t.Fatalf("%s %s: %d %v", q.method, q.path, resp.StatusCode, resp.Header)
		}
	}
	if n := s.ops.Load(); n != 0 {
		t.Fatalf("unrouted requests made %d store operations", n)
	}
	if resp := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "{}", "Idempotency-Key", "k"); resp.StatusCode != 201 || resp.Header.Get("RateLimit") == "" {
		t.Fatalf("routed: %d %v", resp.StatusCode, resp.Header)
	}
}
