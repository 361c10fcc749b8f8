package bans_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/store"
)

// fakeStore records what Bans asks of it and answers what the test says.
type fakeStore struct {
	mu       sync.Mutex
	rules    []store.BanRule
	until    time.Time
	fail     error
	start    bool
	bannedAt []string
}

func (f *fakeStore) Banned(name, addr string, _ time.Time) (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bannedAt = append(f.bannedAt, name+"/"+addr)
	return f.until, !f.until.IsZero()
}

func (f *fakeStore) Fail(_ context.Context, addr string, now time.Time, r store.BanRule) (store.Ban, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = append(f.rules, r)
	if f.fail != nil {
		return store.Ban{}, false, f.fail
	}
	if f.start {
		return store.Ban{Addr: addr, Failures: r.Threshold, Duration: r.Duration, Until: now.Add(r.Duration)}, true, nil
	}
	return store.Ban{}, false, nil
}

func (f *fakeStore) Active(string, time.Time) int { return 7 }

func TestStoreKeepsStateInTheStore(t *testing.T) {
	c := newClock()
	f := &fakeStore{until: c.t.Add(90 * time.Second), start: true}
	b := bans.New(bans.Name("api"), bans.Threshold(4), bans.Window(time.Minute), bans.Duration(time.Hour),
		bans.Clock(c.now), bans.Store(f))
	rem, ok := b.Banned("1.2.3.4")
	if !ok || rem != 90*time.Second {
		t.Fatalf("Banned = %v %v, want the store's ban", rem, ok)
	}
	s, started := b.Fail("1.2.3.4")
	if !started || s.Failures != 4 || !s.Until.Equal(c.t.Add(time.Hour)) {
		t.Fatalf("Fail = %+v %v", s, started)
	}
	want := store.BanRule{Name: "api", Threshold: 4, Window: time.Minute, Duration: time.Hour}
	if len(f.rules) != 1 || f.rules[0] != want {
		t.Fatalf("rule passed = %+v, want %+v", f.rules, want)
	}
	if len(f.bannedAt) != 1 || f.bannedAt[0] != "api/1.2.3.4" {
		t.Fatalf("Banned asked %v", f.bannedAt)
	}
	if b.Active() != 7 {
		t.Fatal("Active not read from the store")
	}
}

func TestAStoreBanThatEndedIsNotABan(t *testing.T) {
	c := newClock()
	b := bans.New(bans.Clock(c.now), bans.Store(&fakeStore{until: c.t}))
	if rem, ok := b.Banned("a"); ok || rem != 0 {
		t.Fatalf("a ban ending now still refuses: %v %v", rem, ok)
	}
}

func TestAFailingStoreFailsOpen(t *testing.T) {
	f := &fakeStore{fail: errors.New("redis: connection refused"), start: true}
	b := bans.New(bans.Store(f))
	if s, started := b.Fail("a"); started || s != (store.Ban{}) {
		t.Fatalf("a failing store started a ban: %+v", s)
	}
}

func TestSharedHandsTheStoreOnlyToBansWithoutOne(t *testing.T) {
	f := &fakeStore{until: time.Now().Add(time.Hour)}
	plain := bans.New(bans.Name("p"))
	shared := plain.Shared(f)
	if shared == plain || shared.Name() != "p" {
		t.Fatal("Shared did not return a copy with the same settings")
	}
	if !banned(shared, "x") || banned(plain, "x") {
		t.Fatal("the copy does not use the store, or the original does")
	}
	own := &fakeStore{}
	explicit := bans.New(bans.Store(own))
	if explicit.Shared(f) != explicit {
		t.Fatal("Shared replaced an explicit store")
	}
	if plain.Shared(nil) != plain {
		t.Fatal("Shared(nil) changed the Bans")
	}
}
