package ratelimit_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/store"
)

// countingRates counts the budget lookups, so a test can tell that a
// request never reached the limiter.
type countingRates struct {
	store.Rates
	calls atomic.Int64
	err   error
}

func (c *countingRates) Allow(ctx context.Context, k store.Key, r store.Rate) (store.RateResult, error) {
	c.calls.Add(1)
	if c.err != nil {
		return store.RateResult{}, c.err
	}
	return c.Rates.Allow(ctx, k, r)
}

func hello(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }

func newLimiter(t *testing.T, rates store.Rates, opts ...ratelimit.Option) *ratelimit.Limiter {
	t.Helper()
	l, err := ratelimit.New(append([]ratelimit.Option{ratelimit.Store(rates)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func chiApp() *chi.Mux {
	r := chi.NewRouter()
	r.With(ratelimit.Limit("2/h", 2, ratelimit.Name("orders"))).Post("/orders", hello)
	r.With(authn.Require("write"), ratelimit.Limit("1/h", 1)).Post("/admin", hello)
	r.With(authn.Anonymous, ratelimit.Limit("1/h", 1, ratelimit.Name("public"))).Get("/public", hello)
	r.Get("/free", hello)
	return r
}

func TestAdmittedResponsesCarryTheRateLimitHeaders(t *testing.T) {
	// A clock that stands still makes the times exact.
	now := time.Unix(1_700_000_000, 0)
	rates := store.NewMemory(store.Clock(func() time.Time { return now }))
	srv := behindtest.Stack(t, chiApp(), newLimiter(t, rates).Middleware)
	// At r=0, t names the point the next request fits: the second
	// request spent the budget, and the third fits 1800 s later.
	want := []string{`"orders";r=1;t=1800`, `"orders";r=0;t=1800`}
	for i, w := range want {
		resp := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "")
		if body := behindtest.Body(t, resp); resp.StatusCode != 200 || body != "ok" {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, body)
		}
		if got := resp.Header.Get("RateLimit-Policy"); got != `"orders";q=2;w=3600` {
			t.Fatalf("RateLimit-Policy %q", got)
		}
		if got := resp.Header.Get("RateLimit"); got != w {
			t.Fatalf("request %d: RateLimit %q, want %q", i, got, w)
		}
	}
	resp := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "")
	if resp.Header.Get("Retry-After") != "1800" || resp.Header.Get("RateLimit") != `"orders";r=0;t=1800` {
		t.Fatalf("refusal headers: %v", resp.Header)
	}
	p := behindtest.Problem(t, resp, http.StatusTooManyRequests, "rate-limit-exceeded")
	if p["retry_after"] != float64(1800) {
		t.Fatalf("retry_after %v", p["retry_after"])
	}
	// Bob has a budget of his own.
	if resp := behindtest.Do(t, srv, "POST", "/orders", behindtest.Bob, ""); resp.StatusCode != 200 {
		t.Fatalf("bob: %d", resp.StatusCode)
	}
}

func TestARefusedRequestSpendsNoBudget(t *testing.T) {
	rates := &countingRates{Rates: store.NewMemory()}
	srv := behindtest.Stack(t, chiApp(), newLimiter(t, rates).Middleware)
	refusals := []struct {
		name, method, path, token string
		status                    int
	}{
		{"no token", "POST", "/orders", "", 401},
		{"forged token", "POST", "/orders", "forged", 401},
		{"missing scope", "POST", "/admin", behindtest.Reader, 403},
		{"no route", "GET", "/nowhere", behindtest.Alice, 404},
		{"no route for the method", "DELETE", "/orders", behindtest.Alice, 405},
		{"a route with no limit", "GET", "/free", behindtest.Alice, 200},
	}
	for _, c := range refusals {
		resp := behindtest.Do(t, srv, c.method, c.path, c.token, "")
		_ = behindtest.Body(t, resp)
		if resp.StatusCode != c.status {
			t.Fatalf("%s: status %d, want %d", c.name, resp.StatusCode, c.status)
		}
		if resp.Header.Get("RateLimit") != "" {
			t.Fatalf("%s: carries RateLimit", c.name)
		}
	}
	if n := rates.calls.Load(); n != 0 {
		t.Fatalf("refused requests reached the limiter %d times", n)
	}
	resp := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "")
	if resp.StatusCode != 200 || resp.Header.Get("RateLimit") != `"orders";r=1;t=1800` {
		t.Fatalf("the budget was spent by refused requests: %d %s", resp.StatusCode, resp.Header.Get("RateLimit"))
	}
}

// Regression: issue 25 item 10.
// Anonymous callers from two addresses (behind a trusted proxy, which
// names them in X-Forwarded-For) each have their own budget: a key that
// ignored the address would refuse the second caller's first request.
func TestAnonymousCallersAreKeyedByAddress(t *testing.T) {
	srv := behindtest.Stack(t, chiApp(), behindtest.Telemetry(t, "127.0.0.1/32"), newLimiter(t, store.NewMemory()).Middleware)
	for _, addr := range []string{"203.0.113.7", "198.51.100.9"} {
		if resp := behindtest.Do(t, srv, "GET", "/public", "", "", "X-Forwarded-For", addr); resp.StatusCode != 200 {
			t.Fatalf("%s first: %d", addr, resp.StatusCode)
		}
		behindtest.Problem(t, behindtest.Do(t, srv, "GET", "/public", "", "", "X-Forwarded-For", addr), 429, "rate-limit-exceeded")
	}
	// An authenticated caller on the same route is keyed by issuer and
	// subject, not by the address it shares with an anonymous one.
	if resp := behindtest.Do(t, srv, "GET", "/public", behindtest.Alice, "", "X-Forwarded-For", "203.0.113.7"); resp.StatusCode != 200 {
		t.Fatalf("alice: %d", resp.StatusCode)
	}
}

func TestIncludeAndExcludeNamePathsFromTheRootUnderAMount(t *testing.T) {
	inner := http.NewServeMux()
	inner.Handle("GET /item", ratelimit.Limit("1/h", 1)(http.HandlerFunc(hello)))
	r := chi.NewRouter()
	r.Mount("/open", http.StripPrefix("/open", inner))
	r.Mount("/shop", http.StripPrefix("/shop", inner))
	l := newLimiter(t, store.NewMemory(), ratelimit.Exclude("/open/*"))
	srv := behindtest.Stack(t, r, l.Middleware)
	for i := range 3 {
		if resp := behindtest.Do(t, srv, "GET", "/open/item", behindtest.Alice, ""); resp.StatusCode != 200 {
			t.Fatalf("excluded path, request %d: %d", i, resp.StatusCode)
		}
	}
	if resp := behindtest.Do(t, srv, "GET", "/shop/item", behindtest.Alice, ""); resp.StatusCode != 200 {
		t.Fatalf("first: %d", resp.StatusCode)
	}
	behindtest.Problem(t, behindtest.Do(t, srv, "GET", "/shop/item", behindtest.Alice, ""), 429, "rate-limit-exceeded")
}

func TestServeMuxRoutesAreLimitedPerMethod(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("POST /orders", ratelimit.Limit("1/h", 1)(http.HandlerFunc(hello)))
	mux.HandleFunc("GET /orders", hello)
	srv := behindtest.Stack(t, mux, newLimiter(t, store.NewMemory()).Middleware)
	for i := range 3 {
		if resp := behindtest.Do(t, srv, "GET", "/orders", behindtest.Alice, ""); resp.StatusCode != 200 {
			t.Fatalf("GET %d: %d", i, resp.StatusCode)
		}
	}
	if resp := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, ""); resp.StatusCode != 200 {
		t.Fatalf("POST: %d", resp.StatusCode)
	}
	behindtest.Problem(t, behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, ""), 429, "rate-limit-exceeded")
}

func TestAStoreFailureAnswers500AndSaysNothingOfIt(t *testing.T) {
	rates := &countingRates{Rates: store.NewMemory(), err: errors.New("redis: connection refused to 10.1.2.3")}
	srv := behindtest.Stack(t, chiApp(), newLimiter(t, rates).Middleware)
	resp := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "")
	body := behindtest.Body(t, resp)
	if resp.StatusCode != 500 || strings.Contains(body, "redis") || strings.Contains(body, "10.1.2.3") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

func TestKeyByAndTrustedProxies(t *testing.T) {
	r := chi.NewRouter()
	r.With(authn.Anonymous, ratelimit.Limit("1/h", 1)).Get("/ip", hello)
	r.With(authn.Anonymous, ratelimit.Limit("1/h", 1, ratelimit.KeyByRoute(func(r *http.Request) string {
		return r.Header.Get("X-Tenant")
	}))).Get("/tenant", hello)
	srv := behindtest.Stack(t, r, behindtest.Telemetry(t, "127.0.0.0/8"), newLimiter(t, store.NewMemory()).Middleware)
	steps := []struct {
		path, header, value string
		status              int
	}{
		{"/ip", "X-Forwarded-For", "203.0.113.1", 200},
		{"/ip", "X-Forwarded-For", "203.0.113.1", 429},
		{"/ip", "X-Forwarded-For", "203.0.113.2", 200},
		{"/ip", "X-Forwarded-For", "203.0.113.2, 127.0.0.9", 429}, // trusted hops are walked past
		{"/tenant", "X-Tenant", "a", 200},
		{"/tenant", "X-Tenant", "a", 429},
		{"/tenant", "X-Tenant", "b", 200},
	}
	for i, s := range steps {
		resp := behindtest.Do(t, srv, "GET", s.path, "", "", s.header, s.value)
		_ = behindtest.Body(t, resp)
		if resp.StatusCode != s.status {
			t.Fatalf("step %d (%s %s): %d, want %d", i, s.path, s.value, resp.StatusCode, s.status)
		}
	}
}

func TestNewRefusesBadSettings(t *testing.T) {
	cases := []struct {
		name string
		opt  ratelimit.Option
	}{
		{"include not a path", ratelimit.Include("orders")},
		{"exclude with a parameter", ratelimit.Exclude("/orders/{id}")},
	}
	for _, c := range cases {
		if _, err := ratelimit.New(c.opt); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
}

func TestParse(t *testing.T) {
	cases := []struct {
		in    string
		burst int
		want  ratelimit.Spec
		ok    bool
	}{
		{"10/s", 20, ratelimit.Spec{Count: 10, Period: time.Second, Burst: 20}, true},
		{"600/m", 0, ratelimit.Spec{Count: 600, Period: time.Minute, Burst: 1}, true},
		{"1000/h", 5, ratelimit.Spec{Count: 1000, Period: time.Hour, Burst: 5}, true},
		{"5/d", 1, ratelimit.Spec{Count: 5, Period: 24 * time.Hour, Burst: 1}, true},
		{"100/10s", 10, ratelimit.Spec{Count: 100, Period: 10 * time.Second, Burst: 10}, true},
		{"10", 1, ratelimit.Spec{}, false},
		{"0/s", 1, ratelimit.Spec{}, false},
		{"-1/s", 1, ratelimit.Spec{}, false},
		{"ten/s", 1, ratelimit.Spec{}, false},
		{"10/fortnight", 1, ratelimit.Spec{}, false},
		{"10/1us", 1, ratelimit.Spec{}, false},
	}
	for _, c := range cases {
		got, err := ratelimit.Parse(c.in, c.burst)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("Parse(%q, %d) = %+v, %v", c.in, c.burst, got, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Limit accepted a bad limit")
		}
	}()
	ratelimit.Limit("10 per second", 1)
}

// The bare form of an excluded prefix ("/public" for "/public/*") is
// exempt only where the router sends it to a route the exclusion covers
// ("/docs" for "/docs/*"); sent to "/{id}", it is limited like any other
// request there.
func TestAnExcludedBarePrefixIsExemptOnlyOnItsOwnRoute(t *testing.T) {
	r := chi.NewRouter()
	r.With(ratelimit.Limit("1/h", 1, ratelimit.Name("docs"))).Get("/docs", hello)
	r.With(ratelimit.Limit("1/h", 1, ratelimit.Name("items"))).Get("/{id}", hello)
	l := newLimiter(t, store.NewMemory(), ratelimit.Exclude("/public/*", "/docs/*"))
	srv := behindtest.Stack(t, r, behindtest.Telemetry(t), l.Middleware)
	for i := range 3 {
		if resp := behindtest.Do(t, srv, "GET", "/docs", behindtest.Alice, ""); resp.StatusCode != 200 {
			t.Fatalf("/docs, request %d: %d", i, resp.StatusCode)
		}
	}
	if resp := behindtest.Do(t, srv, "GET", "/public", behindtest.Alice, ""); resp.StatusCode != 200 {
		t.Fatalf("/public first: %d", resp.StatusCode)
	}
	behindtest.Problem(t, behindtest.Do(t, srv, "GET", "/public", behindtest.Alice, ""), 429, "rate-limit-exceeded")
}
