package redisstore_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/store"
)

const forger = "198.51.100.66"

// eventually polls cond until it holds or limit passes.
func eventually(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func refusedBanned(a answer) bool {
	return a.status == 429 && a.body["type"] == docs+"client-banned" && a.header.Get("Retry-After") != ""
}

func TestABanOnOneReplicaRefusesTheCallerOnAllWithinASecond(t *testing.T) {
	redistest.EachEngine(t, testABanOnOneReplicaRefusesTheCallerOnAllWithinASecond)
}

func testABanOnOneReplicaRefusesTheCallerOnAllWithinASecond(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	a, b, c := newReplica(t, srv.Addr, 3), newReplica(t, srv.Addr, 3), newReplica(t, srv.Addr, 3)
	waitSynced(t, a, b, c)
	// The failures count across replicas: one through each reaches 3.
	for _, r := range []*replica{a, b, c} {
		if got := get(t, r, "/me", forger, "forged"); got.status != 401 {
			t.Fatalf("forgery: %d", got.status)
		}
	}
	banned := time.Now()
	for i, r := range []*replica{a, b, c} {
		// Well within the promised second; the bound is the contract.
		if !eventually(time.Second-time.Since(banned), func() bool { return refusedBanned(get(t, r, "/me", forger, "good")) }) {
			t.Fatalf("replica %d did not refuse the banned caller within 1 s of the ban", i)
		}
	}
	for i, r := range []*replica{a, b, c} {
		if got := get(t, r, "/me", "203.0.113.9", "good"); got.status != 200 {
			t.Fatalf("replica %d refused an innocent caller: %d", i, got.status)
		}
		if n := r.bans.Active("default", time.Now()); n != 1 {
			t.Fatalf("replica %d knows %d bans, want 1", i, n)
		}
	}
}

func TestFailCountsWithinTheWindowAndStartsOneBan(t *testing.T) {
	redistest.EachEngine(t, testFailCountsWithinTheWindowAndStartsOneBan)
}

func testFailCountsWithinTheWindowAndStartsOneBan(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	s := redisstore.NewBans(newClient(t, srv.Addr), "test:")
	ctx := context.Background()
	rule := store.BanRule{Name: "edge", Threshold: 2, Window: 100 * time.Millisecond, Duration: time.Hour}
	if _, started, err := s.Fail(ctx, "a", time.Now(), rule); started || err != nil {
		t.Fatalf("first failure: %v %v", started, err)
	}
	// Past the window the count starts again (the key expired).
	time.Sleep(300 * time.Millisecond)
	if _, started, err := s.Fail(ctx, "a", time.Now(), rule); started || err != nil {
		t.Fatalf("a failure outside the window counted: %v %v", started, err)
	}
	rule.Window = time.Minute
	st, started, err := s.Fail(ctx, "a", time.Now(), rule)
	if !started || err != nil || st.Failures != 2 || st.Duration != time.Hour || st.Addr != "a" {
		t.Fatalf("threshold: %+v %v %v", st, started, err)
	}
	if d := time.Until(st.Until); d < 59*time.Minute || d > 61*time.Minute {
		t.Fatalf("until %v is not an hour away", st.Until)
	}
	if _, again, err := s.Fail(ctx, "a", time.Now(), rule); again || err != nil {
		t.Fatalf("a banned caller started a second ban: %v %v", again, err)
	}
	if until, ok := s.Banned("edge", "a", time.Now()); !ok || !until.Equal(st.Until) {
		t.Fatalf("the replica that banned does not know it at once: %v %v", until, ok)
	}
	if _, ok := s.Banned("other", "a", time.Now()); ok {
		t.Fatal("a ban of one Bans applies to another name")
	}
}

// TestAResubscribeReadsTheBansMissedWhileAway: a ban written while a
// replica's subscriber was away (its message lost) is seen once the
// subscriber is back, because each subscription starts with a full read.
func TestAResubscribeReadsTheBansMissedWhileAway(t *testing.T) {
	redistest.EachEngine(t, testAResubscribeReadsTheBansMissedWhileAway)
}

func testAResubscribeReadsTheBansMissedWhileAway(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	r := newReplica(t, srv.Addr, 3)
	waitSynced(t, r)
	admin := newClient(t, srv.Addr)
	ctx := context.Background()
	until := time.Now().Add(time.Hour).UnixMilli()
	// As a replica whose PUBLISH nobody heard: in the set, never announced.
	if err := admin.ZAdd(ctx, "test:{bans}:active", redis.Z{Score: float64(until), Member: forger + "\x00default"}).Err(); err != nil {
		t.Fatal(err)
	}
	if got := get(t, r, "/me", forger, "good"); got.status != 200 {
		t.Fatalf("the ban was seen without a message or a resync: %d", got.status)
	}
	if err := admin.ClientKillByFilter(ctx, "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	if !eventually(5*time.Second, func() bool { return refusedBanned(get(t, r, "/me", forger, "good")) }) {
		t.Fatal("the ban made while the subscriber was away was not seen after it reconnected")
	}
}

func TestAPeriodicResyncDropsBansRedisNoLongerHolds(t *testing.T) {
	redistest.EachEngine(t, testAPeriodicResyncDropsBansRedisNoLongerHolds)
}

func testAPeriodicResyncDropsBansRedisNoLongerHolds(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	a := newReplicaEvery(t, srv.Addr, 1, 100*time.Millisecond)
	b := newReplicaEvery(t, srv.Addr, 1, 100*time.Millisecond)
	waitSynced(t, a, b)
	get(t, a, "/me", forger, "forged")
	if !eventually(time.Second, func() bool { return refusedBanned(get(t, b, "/me", forger, "good")) }) {
		t.Fatal("ban not shared")
	}
	// An operator lifts the ban in Redis.
	if err := newClient(t, srv.Addr).ZRem(context.Background(), "test:{bans}:active", forger+"\x00default").Err(); err != nil {
		t.Fatal(err)
	}
	for i, r := range []*replica{a, b} {
		if !eventually(5*time.Second, func() bool { return get(t, r, "/me", forger, "good").status == 200 }) {
			t.Fatalf("replica %d still refuses a ban lifted in Redis", i)
		}
	}
}

// meters installs a metric reader as the global provider for one test.
func meters(t *testing.T) *sdkmetric.ManualReader {
	reader := sdkmetric.NewManualReader()
	prev := otel.GetMeterProvider()
	otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	t.Cleanup(func() { otel.SetMeterProvider(prev) })
	return reader
}

func failOpenCount(t *testing.T, reader *sdkmetric.ManualReader, store, op string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "svc.redis.fail_open" {
				continue
			}
			for _, p := range m.Data.(metricdata.Sum[int64]).DataPoints {
				if v, _ := p.Attributes.Value("svc.redis.store"); v != attribute.StringValue(store) {
					continue
				}
				if v, _ := p.Attributes.Value("db.operation.name"); v == attribute.StringValue(op) {
					n += p.Value
				}
			}
		}
	}
	return n
}

// TestBansFailOpenWhileRedisIsDownAndRecoverWhenItReturns: with Redis
// stopped mid-test no request waits on it, forgers are not banned (fail
// open), bans already known are still enforced, and the failure is
// logged once with a count and measured. Restarted, bans work again
// without a restart of the replicas.
func TestBansFailOpenWhileRedisIsDownAndRecoverWhenItReturns(t *testing.T) {
	redistest.EachEngine(t, testBansFailOpenWhileRedisIsDownAndRecoverWhenItReturns)
}

func testBansFailOpenWhileRedisIsDownAndRecoverWhenItReturns(t *testing.T, engine redistest.Option) {
	reader := meters(t)
	srv := redistest.Start(t, engine)
	core, logs := observer.New(zapcore.InfoLevel)
	log := redisstore.LinkLogger(zap.New(core))
	a, b := newReplica(t, srv.Addr, 2, log), newReplica(t, srv.Addr, 2, log)
	waitSynced(t, a, b)
	const known = "192.0.2.1"
	get(t, a, "/me", known, "forged")
	get(t, a, "/me", known, "forged")
	if !eventually(time.Second, func() bool { return refusedBanned(get(t, b, "/me", known, "good")) }) {
		t.Fatal("ban not shared before the outage")
	}

	srv.Stop()
	for i := 0; i < 5; i++ {
		got := get(t, a, "/me", forger, "forged")
		if got.status != 401 {
			t.Fatalf("forgery %d during the outage: %d %v", i, got.status, got.body)
		}
		// The store's timeout is 200 ms; a second is far past any wait on it.
		if got.took > time.Second {
			t.Fatalf("a refused request waited %v on a Redis that is down", got.took)
		}
	}
	for i, r := range []*replica{a, b} {
		if got := get(t, r, "/me", "203.0.113.9", "good"); got.status != 200 || got.took > time.Second {
			t.Fatalf("replica %d during the outage: %d after %v", i, got.status, got.took)
		}
		if !refusedBanned(get(t, r, "/me", known, "good")) {
			t.Fatalf("replica %d forgot a known ban during the outage", i)
		}
	}
	if n := failOpenCount(t, reader, "bans", "bans.fail"); n != 5 {
		t.Fatalf("svc.redis.fail_open{bans,bans.fail} = %d, want 5", n)
	}
	warned := logs.FilterMessageSnippet("failing open").FilterField(zap.String("db.operation.name", "bans.fail")).All()
	if len(warned) != 1 || warned[0].Level != zapcore.WarnLevel {
		t.Fatalf("want one warning for five failures within a minute, got %d", len(warned))
	}
	for _, w := range logs.All() {
		if w.ContextMap()["error"] == nil {
			continue
		}
		if msg, _ := w.ContextMap()["error"].(string); msg == "" {
			t.Errorf("warning without its cause: %v", w.ContextMap())
		}
	}

	srv.Restart()
	// Both replicas count again: one forgery through each starts a ban
	// that both enforce, once their clients and subscribers are back.
	if !eventually(10*time.Second, func() bool {
		get(t, a, "/me", forger, "forged")
		get(t, b, "/me", forger, "forged")
		return refusedBanned(get(t, a, "/me", forger, "good")) && refusedBanned(get(t, b, "/me", forger, "good"))
	}) {
		t.Fatal("bans did not work again after Redis returned")
	}
	if got := logs.FilterMessageSnippet("reaches Redis again").Len(); got == 0 {
		t.Fatal("no line says Redis answers again")
	}
}

func TestNoWaitLongerThanTheTimeoutOnAHangingRedis(t *testing.T) {
	c := newClient(t, blackhole(t))
	s := redisstore.NewBans(c, "test:", redisstore.LinkTimeout(100*time.Millisecond), redisstore.LinkLogger(zap.NewNop()))
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	start := time.Now()
	_, started, err := s.Fail(context.Background(), forger, time.Now(), store.BanRule{Name: "default", Threshold: 1, Window: time.Minute, Duration: time.Minute})
	if started || err == nil {
		t.Fatalf("Fail on a hanging Redis: started=%v err=%v", started, err)
	}
	if !errors.Is(err, context.DeadlineExceeded) && time.Since(start) > time.Second {
		t.Fatalf("Fail waited %v: %v", time.Since(start), err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Fail waited %v on a hanging Redis with a 100 ms timeout", d)
	}
	// The unbanned check never touches the network.
	if _, ok := s.Banned("default", forger, time.Now()); ok {
		t.Fatal("banned without Redis")
	}
	b := bans.New(bans.Store(s))
	if _, started := b.Fail(forger); started {
		t.Fatal("a ban started without Redis")
	}
}

func TestOpenTwiceIsRefusedAndCloseStopsTheSubscriber(t *testing.T) {
	srv := redistest.Start(t)
	s := redisstore.NewBans(newClient(t, srv.Addr), "test:")
	ctx := context.Background()
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Open(ctx); err == nil {
		t.Fatal("second Open accepted")
	}
	stop, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.Close(stop); err != nil {
		t.Fatal(err)
	}
	subs, err := newClient(t, srv.Addr).PubSubNumSub(ctx, "test:bans:started").Result()
	if err != nil {
		t.Fatal(err)
	}
	if !eventually(2*time.Second, func() bool {
		subs, _ = newClient(t, srv.Addr).PubSubNumSub(ctx, "test:bans:started").Result()
		return subs["test:bans:started"] == 0
	}) {
		t.Fatalf("subscriber still subscribed after Close: %v", subs)
	}
	_ = strconv.Itoa
}
