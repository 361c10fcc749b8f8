package flood_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn/flood"
	"github.com/svckit/svc/modules/store"
)

type fakeStore struct {
	rules []store.FloodRule
	wait  time.Duration
	err   error
}

func (f *fakeStore) Allow(_ context.Context, _ string, _ time.Time, r store.FloodRule) (time.Duration, bool, error) {
	f.rules = append(f.rules, r)
	return f.wait, f.wait == 0, f.err
}

func TestStoreSpendsTheStoresBudget(t *testing.T) {
	f := &fakeStore{wait: 3 * time.Second}
	l := flood.New(flood.Rate(4), flood.Burst(9), flood.Store(f))
	wait, ok := l.Allow("a")
	if ok || wait != 3*time.Second {
		t.Fatalf("Allow = %v %v, want the store's refusal", wait, ok)
	}
	if len(f.rules) != 1 || f.rules[0] != (store.FloodRule{Rate: 4, Burst: 9}) {
		t.Fatalf("rule passed = %+v", f.rules)
	}
}

func TestAFailingStoreFailsOpen(t *testing.T) {
	l := flood.New(flood.Store(&fakeStore{wait: time.Second, err: errors.New("redis: i/o timeout")}))
	if wait, ok := l.Allow("a"); !ok || wait != 0 {
		t.Fatalf("a failing store refused: %v %v", wait, ok)
	}
}

func TestSharedHandsTheStoreOnlyToLimitsWithoutOne(t *testing.T) {
	f := &fakeStore{wait: time.Second}
	plain := flood.New()
	if _, ok := plain.Shared(f).Allow("a"); ok {
		t.Fatal("the copy does not use the store")
	}
	if _, ok := plain.Allow("a"); !ok {
		t.Fatal("the original uses the store")
	}
	explicit := flood.New(flood.Store(&fakeStore{}))
	if explicit.Shared(f) != explicit || plain.Shared(nil) != plain {
		t.Fatal("Shared replaced an explicit store, or took a nil one")
	}
}
