package redisstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/svckit/svc/internal/redistest"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/store"
	"github.com/svckit/svc/secret"
)

func TestIdempotencyRecords(t *testing.T) { redistest.EachEngine(t, testIdempotencyRecords) }

func testIdempotencyRecords(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	idem := open(t, srv).Idempotency()
	ctx := t.Context()
	k := store.Key{Space: "POST /orders", Owner: "iss", ID: "alice\nkey-1"}
	claim := func(fp, owner string) store.Claim {
		t.Helper()
		c, err := idem.Claim(ctx, k, fp, owner, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := claim("fp", "a"); c.State != store.Claimed {
		t.Fatalf("first: %v", c.State)
	}
	if c := claim("fp", "b"); c.State != store.InFlight {
		t.Fatalf("duplicate: %v", c.State)
	}
	if c := claim("other", "b"); c.State != store.Mismatch {
		t.Fatalf("other payload: %v", c.State)
	}
	// Someone who does not own the record cannot complete or release it.
	resp := store.Response{Status: 201, Header: map[string][]string{"Location": {"/orders/1"}}, Body: []byte(`{"id":1}`)}
	if err := idem.Complete(ctx, k, "b", store.Response{Status: 500}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := idem.Release(ctx, k, "b"); err != nil {
		t.Fatal(err)
	}
	if c := claim("fp", "c"); c.State != store.InFlight {
		t.Fatalf("after a stranger's complete/release: %v", c.State)
	}
	before := time.Now()
	if err := idem.Complete(ctx, k, "a", resp, time.Minute); err != nil {
		t.Fatal(err)
	}
	c := claim("fp", "d")
	if c.State != store.Done || c.Response.Status != 201 || string(c.Response.Body) != `{"id":1}` ||
		c.Response.Header.Get("Location") != "/orders/1" || c.Stored.Before(before.Add(-time.Second)) {
		t.Fatalf("replay: %+v", c)
	}
	// The owner's late release does not drop a completed record.
	_ = idem.Release(ctx, k, "a")
	if c := claim("fp", "e"); c.State != store.Done {
		t.Fatalf("after late release: %v", c.State)
	}
}

func TestIdempotencyLeaseExpiredOwnerCannotClobber(t *testing.T) {
	redistest.EachEngine(t, testIdempotencyLeaseExpiredOwnerCannotClobber)
}

func testIdempotencyLeaseExpiredOwnerCannotClobber(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	idem := open(t, srv).Idempotency()
	ctx := t.Context()
	k := store.Key{Space: "s", ID: "k"}
	if c, _ := idem.Claim(ctx, k, "fp", "slow", 20*time.Millisecond); c.State != store.Claimed {
		t.Fatal("not claimed")
	}
	for { // until the lease runs out
		time.Sleep(10 * time.Millisecond)
		if c, _ := idem.Claim(ctx, k, "fp", "later", time.Minute); c.State == store.Claimed {
			break
		}
	}
	_ = idem.Complete(ctx, k, "slow", store.Response{Status: 200, Body: []byte("slow")}, time.Minute)
	_ = idem.Release(ctx, k, "slow")
	if c, _ := idem.Claim(ctx, k, "fp", "third", time.Minute); c.State != store.InFlight {
		t.Fatalf("the slow owner clobbered the later one: %v", c.State)
	}
}

// Renew extends the owner's claim in flight (its TTL), and nobody else's.
func TestIdempotencyRenewHoldsOnlyTheOwnersClaim(t *testing.T) {
	redistest.EachEngine(t, testIdempotencyRenewHoldsOnlyTheOwnersClaim)
}

func testIdempotencyRenewHoldsOnlyTheOwnersClaim(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	c := open(t, srv)
	idem := c.Idempotency()
	ctx := t.Context()
	k := store.Key{Space: "s", Owner: "iss", ID: "k"}
	ttl := func() time.Duration {
		t.Helper()
		keys, err := c.Redis().Keys(ctx, "*idem*").Result()
		if err != nil || len(keys) != 1 {
			t.Fatalf("the record's key: %v %v", keys, err)
		}
		d, err := c.Redis().PTTL(ctx, keys[0]).Result()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if cl, _ := idem.Claim(ctx, k, "fp", "a", time.Second); cl.State != store.Claimed {
		t.Fatal("not claimed")
	}
	if held, err := idem.Renew(ctx, k, "b", time.Hour); held || err != nil || ttl() > time.Second {
		t.Fatalf("a stranger renewed: %v %v, TTL %v", held, err, ttl())
	}
	if held, err := idem.Renew(ctx, k, "a", time.Minute); !held || err != nil || ttl() < 50*time.Second {
		t.Fatalf("the owner's renewal: %v %v, TTL %v", held, err, ttl())
	}
	_ = idem.Complete(ctx, k, "a", store.Response{Status: 201}, time.Hour)
	if held, _ := idem.Renew(ctx, k, "a", time.Second); held || ttl() < 50*time.Minute {
		t.Fatalf("a completed record was renewed as a claim: TTL %v", ttl())
	}
}

func TestIdempotencyFailsClosed(t *testing.T) { redistest.EachEngine(t, testIdempotencyFailsClosed) }

func testIdempotencyFailsClosed(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	c := open(t, srv)
	srv.Stop()
	_, err := c.Idempotency().Claim(t.Context(), store.Key{ID: "k"}, "fp", "o", time.Minute)
	var refused *svcerrors.AdmissionRefused
	if !errors.Is(err, store.ErrUnavailable) || !errors.As(err, &refused) {
		t.Fatalf("err = %v, want store.ErrUnavailable and AdmissionRefused", err)
	}
	srv.Restart()
	waitUp(t, c)
	if cl, err := c.Idempotency().Claim(t.Context(), store.Key{ID: "k"}, "fp", "o", time.Minute); err != nil || cl.State != store.Claimed {
		t.Fatalf("after recovery: %+v, %v", cl, err)
	}
}

func TestCache(t *testing.T) { redistest.EachEngine(t, testCache) }

func testCache(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	c, err := redisstore.Open(t.Context(), redisstore.Config{URL: secret.URL(srv.URL), CacheMaxBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cache, ctx := c.Cache(), t.Context()
	k := store.Key{Space: "cache", ID: "GET /a"}
	if _, ok, err := cache.Get(ctx, k); ok || err != nil {
		t.Fatalf("empty: %v %v", ok, err)
	}
	stored := time.Now().Add(-3 * time.Second)
	e := store.Entry{Response: store.Response{Status: 200, Header: map[string][]string{"Etag": {`"x"`}}, Body: []byte("hi")}, Stored: stored}
	if err := cache.Set(ctx, k, e, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	got, ok, err := cache.Get(ctx, k)
	if !ok || err != nil || string(got.Response.Body) != "hi" || got.Response.Header.Get("ETag") != `"x"` || !got.Stored.Equal(stored) {
		t.Fatalf("hit: %+v %v %v", got, ok, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for ok {
		if time.Now().After(deadline) {
			t.Fatal("entry did not expire")
		}
		time.Sleep(20 * time.Millisecond)
		_, ok, _ = cache.Get(ctx, k)
	}
	if err := cache.Set(ctx, k, e, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := cache.Delete(ctx, k); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := cache.Get(ctx, k); ok {
		t.Fatal("a deleted entry was served")
	}
	big := store.Entry{Response: store.Response{Status: 200, Body: make([]byte, 200)}}
	_ = cache.Set(ctx, k, big, time.Minute)
	if _, ok, _ := cache.Get(ctx, k); ok {
		t.Fatal("an entry over CacheMaxBytes was stored")
	}
	srv.Stop()
	if _, ok, err := cache.Get(ctx, k); ok || err != nil {
		t.Fatalf("down: Get %v %v, want a miss without error (bypass)", ok, err)
	}
	if err := cache.Set(ctx, k, e, time.Minute); err != nil {
		t.Fatalf("down: Set %v, want nil (bypass)", err)
	}
	if err := cache.Delete(ctx, k); err != nil {
		t.Fatalf("down: Delete %v, want nil (bypass)", err)
	}
}
