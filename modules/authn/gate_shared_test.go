package authn_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/flood"
	"github.com/svckit/svc/modules/store"
)

// sharedBans is a Store two gates share, as replicas share Redis: one
// failure count and one ban set.
type sharedBans struct {
	mu    sync.Mutex
	fails map[string]int
	until map[string]time.Time
}

func (s *sharedBans) Banned(name, addr string, now time.Time) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.until[name+"/"+addr]
	return u, ok && now.Before(u)
}

func (s *sharedBans) Fail(_ context.Context, addr string, now time.Time, r store.BanRule) (store.Ban, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := r.Name + "/" + addr
	s.fails[k]++
	if s.fails[k] < r.Threshold {
		return store.Ban{}, false, nil
	}
	s.until[k] = now.Add(r.Duration)
	return store.Ban{Addr: addr, Failures: s.fails[k], Duration: r.Duration, Until: s.until[k]}, true, nil
}

func (s *sharedBans) Active(string, time.Time) int { return len(s.until) }

// sharedFlood gives every address one request in all.
type sharedFlood struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (s *sharedFlood) Allow(_ context.Context, addr string, _ time.Time, _ store.FloodRule) (time.Duration, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[addr] {
		return 5 * time.Second, false, nil
	}
	s.seen[addr] = true
	return 0, true, nil
}

func TestSharedStoresShareBansAndFloodBetweenGates(t *testing.T) {
	sb := &sharedBans{fails: map[string]int{}, until: map[string]time.Time{}}
	sf := &sharedFlood{seen: map[string]bool{}}
	gate := func() *observed {
		return observedGateBehind(t, []string{"127.0.0.1/32"}, exampleRouter(), newFake(),
			authn.Bans(bans.New(bans.Threshold(2), bans.Duration(time.Minute))),
			authn.Flood(flood.New(flood.Rate(100), flood.Burst(100))),
			authn.SharedStores(sb, sf, nil))
	}
	a, b := gate(), gate()
	forger := from("198.51.100.66", bearerHeader("forged-token"))
	// One forgery through each replica: the shared count reaches 2.
	for _, o := range []*observed{a, b} {
		if got := do(t, o.srv, "GET", "/me", forger, ""); got.status != 401 {
			t.Fatalf("forgery: %d", got.status)
		}
	}
	for _, o := range []*observed{a, b} {
		got := do(t, o.srv, "GET", "/me", from("198.51.100.66", bearerHeader("alice-token")), "")
		if got.status != 429 || got.json["type"] != docs+"client-banned" || got.header.Get("Retry-After") == "" {
			t.Fatalf("banned caller on a replica: %d %v %s", got.status, got.header, got.body)
		}
	}
	caller := from("203.0.113.5", bearerHeader("alice-token"))
	if got := do(t, a.srv, "GET", "/nowhere", caller, ""); got.status != 404 {
		t.Fatalf("first unknown URL: %d", got.status)
	}
	got := do(t, b.srv, "GET", "/nowhere", caller, "")
	if got.status != 429 || got.json["type"] != docs+"rate-limit-exceeded" || got.header.Get("Retry-After") != "5" {
		t.Fatalf("the other replica did not spend the shared flood budget: %d %v %s", got.status, got.header, got.body)
	}
}

func TestAnExplicitStoreWinsOverSharedStores(t *testing.T) {
	sb := &sharedBans{fails: map[string]int{}, until: map[string]time.Time{}}
	own := &sharedBans{fails: map[string]int{}, until: map[string]time.Time{}}
	o := observedGateBehind(t, []string{"127.0.0.1/32"}, exampleRouter(), newFake(),
		authn.Bans(bans.New(bans.Threshold(1), bans.Store(own))),
		authn.SharedStores(sb, nil, nil))
	if got := do(t, o.srv, "GET", "/me", from("198.51.100.66", bearerHeader("forged-token")), ""); got.status != 401 {
		t.Fatalf("forgery: %d", got.status)
	}
	if len(own.until) != 1 || len(sb.until) != 0 {
		t.Fatalf("ban kept in own=%d shared=%d; want the explicit store", len(own.until), len(sb.until))
	}
}
