package redisstore_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/authn/flood"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/store"
)

func TestFloodBudgetIsOnePerAddressAcrossReplicas(t *testing.T) {
	redistest.EachEngine(t, testFloodBudgetIsOnePerAddressAcrossReplicas)
}

func testFloodBudgetIsOnePerAddressAcrossReplicas(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	rs := []*replica{newReplica(t, srv.Addr, 3), newReplica(t, srv.Addr, 3), newReplica(t, srv.Addr, 3)}
	const caller = "203.0.113.77"
	// Burst 3 in all: one unknown URL through each replica spends it.
	for i, r := range rs {
		if got := get(t, r, "/nowhere", caller, "good"); got.status != 404 {
			t.Fatalf("unknown URL %d within the burst: %d", i, got.status)
		}
	}
	for i, r := range rs {
		got := get(t, r, "/nowhere", caller, "good")
		if got.status != 429 || got.body["type"] != docs+"rate-limit-exceeded" || got.header.Get("Retry-After") == "" {
			t.Fatalf("replica %d over the shared budget: %d %v %v", i, got.status, got.header, got.body)
		}
	}
	if got := get(t, rs[0], "/nowhere", "203.0.113.78", "good"); got.status != 404 {
		t.Fatalf("another address shares the budget: %d", got.status)
	}
	if got := get(t, rs[1], "/me", caller, "good"); got.status != 200 {
		t.Fatalf("a real route spent the flood budget: %d", got.status)
	}
}

func TestFloodGCRAStep(t *testing.T) { redistest.EachEngine(t, testFloodGCRAStep) }

func testFloodGCRAStep(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	s := redisstore.NewFlood(newClient(t, srv.Addr), "test:")
	ctx := context.Background()
	rule := store.FloodRule{Rate: 2, Burst: 2}
	for i := 0; i < 2; i++ {
		if _, ok, err := s.Allow(ctx, "a", time.Now(), rule); !ok || err != nil {
			t.Fatalf("request %d within the burst: %v %v", i, ok, err)
		}
	}
	wait, ok, err := s.Allow(ctx, "a", time.Now(), rule)
	if ok || err != nil || wait <= 0 || wait > 500*time.Millisecond {
		t.Fatalf("over the burst at 2/s: ok=%v wait=%v err=%v", ok, wait, err)
	}
	// After the wait it names, one more is allowed.
	time.Sleep(wait + 50*time.Millisecond)
	if _, ok, err := s.Allow(ctx, "a", time.Now(), rule); !ok || err != nil {
		t.Fatalf("no refill after the wait: %v %v", ok, err)
	}
	ttl, err := newClient(t, srv.Addr).PTTL(ctx, "test:flood:a").Result()
	if err != nil || ttl <= 0 || ttl > 2*time.Second {
		t.Fatalf("the key does not expire when the budget is full again: %v %v", ttl, err)
	}
}

func TestFloodFailsOpenWhileRedisIsDownAndRecovers(t *testing.T) {
	redistest.EachEngine(t, testFloodFailsOpenWhileRedisIsDownAndRecovers)
}

func testFloodFailsOpenWhileRedisIsDownAndRecovers(t *testing.T, engine redistest.Option) {
	reader := meters(t)
	srv := redistest.Start(t, engine)
	core, logs := observer.New(zapcore.InfoLevel)
	s := redisstore.NewFlood(newClient(t, srv.Addr), "test:", redisstore.LinkTimeout(200*time.Millisecond), redisstore.LinkLogger(zap.New(core)))
	l := flood.New(flood.Rate(0.01), flood.Burst(1), flood.Store(s))
	if _, ok := l.Allow("a"); !ok {
		t.Fatal("first request refused")
	}
	if _, ok := l.Allow("a"); ok {
		t.Fatal("budget not spent")
	}
	srv.Stop()
	for i := 0; i < 3; i++ {
		start := time.Now()
		if _, ok := l.Allow("a"); !ok {
			t.Fatal("refused while Redis is down: flood limits fail open")
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("Allow waited %v with a 200 ms timeout", d)
		}
	}
	if n := failOpenCount(t, reader, "flood", "flood.allow"); n != 3 {
		t.Fatalf("svc.redis.fail_open{flood} = %d, want 3", n)
	}
	w := logs.FilterMessageSnippet("failing open").All()
	if len(w) != 1 || w[0].ContextMap()["svc.redis.store"] != "flood" {
		t.Fatalf("want one warning, got %d", len(w))
	}
	srv.Restart() // empty, with an empty script cache
	if !eventually(10*time.Second, func() bool {
		_, ok := l.Allow("b")
		_, again := l.Allow("b")
		return ok && !again
	}) {
		t.Fatal("the shared budget did not apply again after Redis returned")
	}
	if logs.FilterMessageSnippet("reaches Redis again").Len() != 1 {
		t.Fatal("recovery not logged once")
	}
}
