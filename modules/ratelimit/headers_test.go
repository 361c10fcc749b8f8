package ratelimit_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/store"
)

// param reads one parameter of a structured-field item: `"n";r=3;t=1`.
func param(t *testing.T, item, name string) int {
	t.Helper()
	for _, p := range strings.Split(item, ";")[1:] {
		if k, v, _ := strings.Cut(p, "="); k == name {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("%s in %q: %v", name, item, err)
			}
			return n
		}
	}
	t.Fatalf("no %s in %q", name, item)
	return 0
}

// draft-ietf-httpapi-ratelimit-headers: the remaining quota r never
// exceeds the policy's q, and at r=0 the reset t names the same point as
// Retry-After. A burst larger than the count is stated in the policy as
// the burst and the time it takes to refill, at the same rate.
func TestRateLimitFieldsAgreeWithThePolicyAndRetryAfter(t *testing.T) {
	cases := []struct {
		limit  string
		burst  int
		policy string
	}{
		{"5/s", 10, `"l";q=10;w=2`},  // the burst exceeds the count: 10 per 2 s
		{"10/s", 5, `"l";q=10;w=1`},  // the burst fits: the count per period
		{"2/h", 2, `"l";q=2;w=3600`}, // equal
		{"1/m", 1, `"l";q=1;w=60`},
	}
	for _, c := range cases {
		t.Run(c.limit+" burst "+strconv.Itoa(c.burst), func(t *testing.T) {
			now := time.Unix(1_700_000_000, 0)
			rates := store.NewMemory(store.Clock(func() time.Time { return now }))
			r := chi.NewRouter()
			r.With(ratelimit.Limit(c.limit, c.burst, ratelimit.Name("l"))).Get("/x", hello)
			srv := behindtest.Stack(t, r, newLimiter(t, rates).Middleware)
			for i := 0; ; i++ {
				resp := behindtest.Do(t, srv, "GET", "/x", behindtest.Alice, "")
				_ = behindtest.Body(t, resp)
				if got := resp.Header.Get("RateLimit-Policy"); got != c.policy {
					t.Fatalf("RateLimit-Policy %q, want %q", got, c.policy)
				}
				item := resp.Header.Get("RateLimit")
				if rem := param(t, item, "r"); rem > param(t, c.policy, "q") {
					t.Fatalf("request %d: r=%d exceeds q in %q", i, rem, c.policy)
				}
				if resp.StatusCode == http.StatusTooManyRequests {
					if ra := resp.Header.Get("Retry-After"); param(t, item, "r") != 0 || strconv.Itoa(param(t, item, "t")) != ra {
						t.Fatalf("a refusal's RateLimit %q disagrees with Retry-After %s", item, ra)
					}
					if i != c.burst {
						t.Fatalf("refused after %d requests, want %d (the burst)", i, c.burst)
					}
					return
				}
				if resp.StatusCode != 200 {
					t.Fatalf("request %d: %d", i, resp.StatusCode)
				}
				if i > c.burst {
					t.Fatalf("never refused")
				}
			}
		})
	}
}

// uncheckedRates fails open, as a networked store does while it cannot be
// reached.
type uncheckedRates struct{}

func (uncheckedRates) Allow(context.Context, store.Key, store.Rate) (store.RateResult, error) {
	return store.RateResult{Allowed: true, Unchecked: true}, nil
}

// A budget the store could not check is told to nobody: the request goes
// through with no RateLimit fields, not a made-up remaining count.
func TestAnUncheckedBudgetSendsNoRateLimitFields(t *testing.T) {
	r := chi.NewRouter()
	r.With(ratelimit.Limit("1/h", 1, ratelimit.Name("l"))).Get("/x", hello)
	srv := behindtest.Stack(t, r, newLimiter(t, uncheckedRates{}).Middleware)
	for i := range 3 {
		resp := behindtest.Do(t, srv, "GET", "/x", behindtest.Alice, "")
		if body := behindtest.Body(t, resp); resp.StatusCode != 200 || body != "ok" {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, body)
		}
		if v := resp.Header.Values("RateLimit"); len(v) != 0 {
			t.Fatalf("request %d: RateLimit %q for an unchecked budget", i, v)
		}
		if v := resp.Header.Values("RateLimit-Policy"); len(v) != 0 {
			t.Fatalf("request %d: RateLimit-Policy %q for an unchecked budget", i, v)
		}
	}
}
