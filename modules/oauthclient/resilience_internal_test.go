package oauthclient

import (
	"net/url"
	"testing"
	"time"
)

func testResilience(r Resilience) *Resilience {
	r = r.withDefaults()
	return &r
}

// Hosts past MaxHosts share one entry, with a budget and no breaker, so a
// pattern redirected to ever new hosts grows neither memory nor metric
// series.
func TestHostsPastTheCapShareOneEntryWithoutABreaker(t *testing.T) {
	hs := newHosts(testResilience(Resilience{MaxHosts: 2}))
	a, b := hs.get(&url.URL{Host: "a.example:8443"}), hs.get(&url.URL{Host: "[::1]:80"})
	if a.addr != "a.example" || b.addr != "::1" || !a.breaker || !b.breaker {
		t.Fatalf("entries %q %v, %q %v", a.addr, a.breaker, b.addr, b.breaker)
	}
	for _, h := range []string{"c.example", "d.example"} {
		if e := hs.get(&url.URL{Host: h}); e != hs.other || e.breaker || e.addr != "other" {
			t.Fatalf("%s got its own entry past the cap", h)
		}
	}
	if hs.get(&url.URL{Host: "a.example:8443"}) != a || len(*hs.table.Load()) != 2 {
		t.Fatal("the table changed")
	}
	// The shared entry never opens, whatever fails.
	now := time.Unix(1_700_000_000, 0)
	for range 100 {
		hs.other.record(now, outcomeFailure, false, true)
	}
	if !hs.other.admit(now).ok || len(hs.tripped()) != 0 {
		t.Fatal("the shared entry refused a request")
	}
}

// The breaker's and the budget's bookkeeping on the happy path allocate
// nothing.
func TestBookkeepingAllocatesNothing(t *testing.T) {
	hs := newHosts(testResilience(Resilience{}))
	u := &url.URL{Host: "api.example"}
	hs.get(u)
	now := time.Unix(1_700_000_000, 0)
	allocs := testing.AllocsPerRun(1000, func() {
		h := hs.get(u)
		a := h.admit(now)
		h.record(now, outcomeSuccess, a.probe, true)
		now = now.Add(time.Millisecond)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per request", allocs)
	}
}

// The window forgets: requests and failures older than Window no longer
// count toward the failure rate or the budget.
func TestTheWindowForgetsOldCounts(t *testing.T) {
	h := &host{cfg: testResilience(Resilience{MinRequests: 4, MinRetries: 1, RetryBudget: 0.1}), breaker: true}
	now := time.Unix(1_700_000_000, 0)
	for range 3 {
		h.admit(now)
		h.record(now, outcomeFailure, false, true)
	}
	if ok, _ := h.again(now); !ok {
		t.Fatal("the floor allows one retry")
	}
	if ok, budget := h.again(now); ok || budget {
		t.Fatal("a second retry passed a budget of 1 + 0.1 × 3")
	}
	now = now.Add(h.cfg.Window)
	h.admit(now)
	if h.record(now, outcomeFailure, false, true); h.tripped() {
		t.Fatal("failures older than the window opened the breaker")
	}
	if ok, _ := h.again(now); !ok {
		t.Fatal("retries older than the window still count")
	}
}

func TestRateLimitReset(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   time.Duration
		ok     bool
	}{
		{[]string{`"default";r=0;t=10`}, 10 * time.Second, true},
		{[]string{`"a";r=5;t=1, "b";r=0;t=30`, `"c";r=0;t=20`}, 30 * time.Second, true},
		{[]string{`"a,;b";r=0;t=4`}, 4 * time.Second, true},
		{[]string{`"default";r=3;t=10`}, 0, false},
		{[]string{`"default";t=10`}, 0, false},
		{[]string{`garbage`, `"x";r=0;t=-1`, `"y";r=0;t=1.5`}, 0, false},
		{[]string{`"default";r=0;t=999999999`}, maxRetryAfter, true},
	} {
		if got, ok := rateLimitReset(tc.values); got != tc.want || ok != tc.ok {
			t.Errorf("%q: %v %v, want %v %v", tc.values, got, ok, tc.want, tc.ok)
		}
	}
}
