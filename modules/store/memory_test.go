package store_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/modules/store"
)

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock { return &fakeClock{now: time.Unix(1_700_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func TestAllowSpendsTheBurstThenRefillsByInterval(t *testing.T) {
	clk := newClock()
	m := store.NewMemory(store.Clock(clk.Now))
	ctx := context.Background()
	k := store.Key{Space: "s", Owner: "iss", ID: "alice"}
	rate := store.Rate{Interval: 100 * time.Millisecond, Burst: 3}

	steps := []struct {
		name      string
		advance   time.Duration
		allowed   bool
		remaining int
		retry     time.Duration
	}{
		{"first of the burst", 0, true, 2, 0},
		{"second", 0, true, 1, 0},
		{"third empties it", 0, true, 0, 0},
		{"fourth is refused", 0, false, 0, 100 * time.Millisecond},
		{"still refused part way", 40 * time.Millisecond, false, 0, 60 * time.Millisecond},
		{"one interval on, one fits", 60 * time.Millisecond, true, 0, 0},
		{"a full burst later, all back", time.Second, true, 2, 0},
	}
	for _, s := range steps {
		clk.Advance(s.advance)
		res, err := m.Allow(ctx, k, rate)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if res.Allowed != s.allowed || res.Remaining != s.remaining || res.RetryAfter != s.retry {
			t.Fatalf("%s: got %+v, want allowed=%v remaining=%d retry=%v", s.name, res, s.allowed, s.remaining, s.retry)
		}
	}
	other, _ := m.Allow(ctx, store.Key{Space: "s", Owner: "iss", ID: "bob"}, rate)
	if !other.Allowed || other.Remaining != 2 {
		t.Fatalf("another key shares the budget: %+v", other)
	}
}

func TestAllowRefusesAnInvalidRate(t *testing.T) {
	m := store.NewMemory()
	for _, r := range []store.Rate{{Interval: 0, Burst: 1}, {Interval: time.Second, Burst: 0}} {
		if _, err := m.Allow(context.Background(), store.Key{}, r); err == nil {
			t.Fatalf("Allow(%+v) accepted an invalid rate", r)
		}
	}
}

// A limit of N per second admits N per second (plus the burst at the
// start) however many goroutines ask: the clock is fake, so the count is
// exact.
func TestAllowUnderConcurrencyAdmitsTheRate(t *testing.T) {
	const perSecond = 20
	clk := newClock()
	m := store.NewMemory(store.Clock(clk.Now))
	rate := store.Rate{Interval: time.Second / perSecond, Burst: 1}
	k := store.Key{Space: "s", ID: "10.0.0.1"}
	for second := range 4 {
		var admitted atomic.Int64
		// The second is walked in steps of one interval; in each step 50
		// goroutines race for the budget.
		for range perSecond {
			var wg sync.WaitGroup
			for range 50 {
				wg.Go(func() {
					for range 4 {
						if res, _ := m.Allow(context.Background(), k, rate); res.Allowed {
							admitted.Add(1)
						}
					}
				})
			}
			wg.Wait()
			clk.Advance(rate.Interval)
		}
		if got := admitted.Load(); got < perSecond-1 || got > perSecond+1 {
			t.Fatalf("second %d: admitted %d, want %d ± 1", second, got, perSecond)
		}
	}
}

func TestMaxRateKeysBoundsTheTable(t *testing.T) {
	clk := newClock()
	m := store.NewMemory(store.Clock(clk.Now), store.MaxRateKeys(64))
	rate := store.Rate{Interval: time.Hour, Burst: 1}
	for i := range 10_000 {
		res, err := m.Allow(context.Background(), store.Key{ID: string(rune('a'+i%26)) + time.Duration(i).String()}, rate)
		if err != nil || !res.Allowed {
			t.Fatalf("key %d: %+v %v", i, res, err)
		}
	}
	if n := store.RateKeys(m); n > 64*2 {
		t.Fatalf("%d keys kept, want about 64", n)
	}
}

func TestIdempotencyRecords(t *testing.T) {
	clk := newClock()
	m := store.NewMemory(store.Clock(clk.Now))
	ctx := context.Background()
	k := store.Key{Space: "POST /orders", ID: "key-1"}

	c, _ := m.Claim(ctx, k, "fp", "owner-1", time.Minute)
	if c.State != store.Claimed {
		t.Fatalf("first claim: %v", c.State)
	}
	if c, _ = m.Claim(ctx, k, "fp", "owner-2", time.Minute); c.State != store.InFlight {
		t.Fatalf("duplicate while running: %v", c.State)
	}
	if c, _ = m.Claim(ctx, k, "other", "owner-2", time.Minute); c.State != store.Mismatch {
		t.Fatalf("other payload: %v", c.State)
	}
	// Someone else cannot complete or release the record.
	_ = m.Complete(ctx, k, "owner-2", store.Response{Status: 500}, time.Hour)
	_ = m.Release(ctx, k, "owner-2")
	if c, _ = m.Claim(ctx, k, "fp", "owner-3", time.Minute); c.State != store.InFlight {
		t.Fatalf("a stranger's Complete or Release touched the record: %v", c.State)
	}
	resp := store.Response{Status: 201, Header: http.Header{"Location": {"/orders/1"}}, Body: []byte(`{"id":1}`)}
	if err := m.Complete(ctx, k, "owner-1", resp, time.Hour); err != nil {
		t.Fatal(err)
	}
	resp.Body[0] = 'X' // the store kept its own copy
	c, _ = m.Claim(ctx, k, "fp", "owner-4", time.Minute)
	if c.State != store.Done || c.Response.Status != 201 || string(c.Response.Body) != `{"id":1}` || c.Response.Header.Get("Location") != "/orders/1" {
		t.Fatalf("replay: %+v", c)
	}
	clk.Advance(2 * time.Hour)
	if c, _ = m.Claim(ctx, k, "other", "owner-5", time.Minute); c.State != store.Claimed {
		t.Fatalf("after the TTL the key is free: %v", c.State)
	}
	// A lease that ran out frees the key too, and the late owner cannot
	// overwrite the new holder's record.
	clk.Advance(2 * time.Minute)
	if c, _ = m.Claim(ctx, k, "fp2", "owner-6", time.Minute); c.State != store.Claimed {
		t.Fatalf("after the lease: %v", c.State)
	}
	_ = m.Complete(ctx, k, "owner-5", store.Response{Status: 200}, time.Hour)
	if c, _ = m.Claim(ctx, k, "fp2", "owner-7", time.Minute); c.State != store.InFlight {
		t.Fatalf("a late owner overwrote the record: %v", c.State)
	}
	if err := m.Release(ctx, k, "owner-6"); err != nil {
		t.Fatal(err)
	}
	if c, _ = m.Claim(ctx, k, "fp3", "owner-8", time.Minute); c.State != store.Claimed {
		t.Fatalf("after Release: %v", c.State)
	}
}

func TestMaxRecordsKeepsRecordsInFlight(t *testing.T) {
	m := store.NewMemory(store.MaxRecords(2))
	ctx := context.Background()
	a, b, c := store.Key{ID: "a"}, store.Key{ID: "b"}, store.Key{ID: "c"}
	_, _ = m.Claim(ctx, a, "fp", "o", time.Minute)
	_, _ = m.Claim(ctx, b, "fp", "o", time.Minute)
	_ = m.Complete(ctx, b, "o", store.Response{Status: 200}, time.Hour)
	if cl, _ := m.Claim(ctx, c, "fp", "o", time.Minute); cl.State != store.Claimed {
		t.Fatalf("c: %v", cl.State)
	}
	if cl, _ := m.Claim(ctx, a, "fp", "o2", time.Minute); cl.State != store.InFlight {
		t.Fatalf("the record in flight was dropped: %v", cl.State)
	}
	if cl, _ := m.Claim(ctx, b, "fp", "o2", time.Minute); cl.State != store.Claimed {
		t.Fatalf("the completed record should have made room: %v", cl.State)
	}
}

func TestCacheExpiresAndStaysUnderItsBound(t *testing.T) {
	clk := newClock()
	m := store.NewMemory(store.Clock(clk.Now), store.MaxCacheSize(1000))
	ctx := context.Background()
	entry := func(n int) store.Entry {
		return store.Entry{Response: store.Response{Status: 200, Body: make([]byte, n)}, Stored: clk.Now()}
	}
	_ = m.Set(ctx, store.Key{ID: "a"}, entry(300), time.Minute)
	_ = m.Set(ctx, store.Key{ID: "b"}, entry(300), time.Minute)
	if _, ok, _ := m.Get(ctx, store.Key{ID: "a"}); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	_ = m.Set(ctx, store.Key{ID: "c"}, entry(300), time.Minute)
	if _, ok, _ := m.Get(ctx, store.Key{ID: "b"}); ok {
		t.Fatal("b, the least recently used, should have been dropped")
	}
	for _, id := range []string{"a", "c"} {
		if _, ok, _ := m.Get(ctx, store.Key{ID: id}); !ok {
			t.Fatalf("%s dropped", id)
		}
	}
	_ = m.Set(ctx, store.Key{ID: "huge"}, entry(5000), time.Minute)
	if _, ok, _ := m.Get(ctx, store.Key{ID: "huge"}); ok {
		t.Fatal("an entry over the whole bound was stored")
	}
	clk.Advance(time.Minute)
	if _, ok, _ := m.Get(ctx, store.Key{ID: "a"}); ok {
		t.Fatal("an expired entry was served")
	}
}

// Delete frees the entry's bytes: what it held is free for other entries.
func TestCacheDeleteDropsTheEntryAndItsBytes(t *testing.T) {
	m := store.NewMemory(store.MaxCacheSize(1000))
	ctx := context.Background()
	entry := store.Entry{Response: store.Response{Status: 200, Body: make([]byte, 600)}}
	_ = m.Set(ctx, store.Key{ID: "a"}, entry, time.Minute)
	if err := m.Delete(ctx, store.Key{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := m.Get(ctx, store.Key{ID: "a"}); ok {
		t.Fatal("a deleted entry was served")
	}
	if err := m.Delete(ctx, store.Key{ID: "never"}); err != nil {
		t.Fatal(err)
	}
	_ = m.Set(ctx, store.Key{ID: "b"}, entry, time.Minute)
	if _, ok, _ := m.Get(ctx, store.Key{ID: "b"}); !ok {
		t.Fatal("b was not stored: Delete kept a's bytes counted")
	}
}

// A full store frees a sixteenth of its bound at once, so the claims that
// follow do not each walk the whole table; records in flight stay.
func TestAFullRecordTableFreesRoomInBatches(t *testing.T) {
	m := store.NewMemory(store.MaxRecords(64))
	ctx := context.Background()
	claim := func(id string) {
		t.Helper()
		if c, err := m.Claim(ctx, store.Key{ID: id}, "fp", "o-"+id, time.Minute); err != nil || c.State != store.Claimed {
			t.Fatalf("claim %s: %+v %v", id, c, err)
		}
	}
	claim("in-flight")
	for i := range 63 {
		id := fmt.Sprint("done-", i)
		claim(id)
		_ = m.Complete(ctx, store.Key{ID: id}, "o-"+id, store.Response{Status: 201}, time.Hour)
	}
	claim("one-more")
	if n := store.Records(m); n > 64-4+1 {
		t.Fatalf("%d records after the bound was reached, want at most %d", n, 64-4+1)
	}
	if c, _ := m.Claim(ctx, store.Key{ID: "in-flight"}, "fp", "other", time.Minute); c.State != store.InFlight {
		t.Fatalf("the record in flight was dropped: %+v", c)
	}
}

// Renew extends only the owner's claim in flight: not a stranger's, not a
// completed record, not a lease that already ran out.
func TestRenewHoldsOnlyTheOwnersClaimInFlight(t *testing.T) {
	clk := newClock()
	m := store.NewMemory(store.Clock(clk.Now))
	ctx := context.Background()
	k := store.Key{Space: "POST /orders", ID: "key-1"}
	if c, _ := m.Claim(ctx, k, "fp", "owner-1", time.Minute); c.State != store.Claimed {
		t.Fatalf("claim: %v", c.State)
	}
	if held, err := m.Renew(ctx, k, "owner-2", time.Hour); held || err != nil {
		t.Fatalf("a stranger renewed: %v %v", held, err)
	}
	clk.Advance(50 * time.Second)
	if held, err := m.Renew(ctx, k, "owner-1", time.Minute); !held || err != nil {
		t.Fatalf("the owner's renewal: %v %v", held, err)
	}
	clk.Advance(50 * time.Second) // past the first lease, within the renewed one
	if c, _ := m.Claim(ctx, k, "fp", "owner-3", time.Minute); c.State != store.InFlight {
		t.Fatalf("after the renewal: %v, want in flight", c.State)
	}
	clk.Advance(time.Minute)
	if held, _ := m.Renew(ctx, k, "owner-1", time.Minute); held {
		t.Fatal("a lapsed claim was renewed")
	}
	if c, _ := m.Claim(ctx, k, "fp", "owner-4", time.Minute); c.State != store.Claimed {
		t.Fatalf("after the lapse: %v", c.State)
	}
	_ = m.Complete(ctx, k, "owner-4", store.Response{Status: 201}, time.Hour)
	if held, _ := m.Renew(ctx, k, "owner-4", time.Minute); held {
		t.Fatal("a completed record was renewed as a claim")
	}
}
