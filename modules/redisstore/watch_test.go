package redisstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/secret"
)

// count sums the points of the counter name whose attribute attr is val.
func count(t *testing.T, reader *sdkmetric.ManualReader, name, attr, val string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			for _, p := range m.Data.(metricdata.Sum[int64]).DataPoints {
				if v, _ := p.Attributes.Value(attribute.Key(attr)); v == attribute.StringValue(val) {
					n += p.Value
				}
			}
		}
	}
	return n
}

// A slot moved to another primary under a client that knows the old map:
// the client follows MOVED, the command succeeds and
// svc.redis.redirections counts it. Then a primary is killed: once a
// replica took over, a readiness check counts the failover and warns.
func TestClusterRedirectionsAndFailoversAreCounted(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a Cluster is six processes")
	}
	cl := redistest.StartCluster(t)
	reader := sdkmetric.NewManualReader()
	core, logs := observer.New(zapcore.InfoLevel)
	c, err := redisstore.Open(t.Context(), redisstore.Config{URL: secret.URL(cl.URL), Mode: redisstore.ModeCluster, Timeout: 2 * time.Second},
		redisstore.MeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))), redisstore.Logger(zap.New(core)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	cc := c.Redis().(*redis.ClusterClient)
	ctx := t.Context()
	const key = "moved-key"
	if err := cc.Set(ctx, "other", "x", time.Minute).Err(); err != nil { // loads the slot map
		t.Fatal(err)
	}
	// Move the (empty) slot of key to another primary on every node.
	s := slot(key)
	shards, err := cc.ClusterShards(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	var from, to string
	for _, sh := range shards {
		holds := false
		for _, r := range sh.Slots {
			holds = holds || (int64(s) >= r.Start && int64(s) <= r.End)
		}
		for _, n := range sh.Nodes {
			switch {
			case n.Role != "master":
			case holds:
				from = n.ID
			case to == "":
				to = n.ID
			}
		}
	}
	for _, n := range cl.Nodes {
		rdb := redis.NewClient(&redis.Options{Addr: n.Addr})
		err := rdb.Do(ctx, "CLUSTER", "SETSLOT", s, "NODE", to).Err()
		_ = rdb.Close()
		if err != nil && !strings.Contains(err.Error(), "only with masters") {
			t.Fatalf("CLUSTER SETSLOT %d NODE %s on %s (was %s): %v", s, to, n.Addr, from, err)
		}
	}
	if err := cc.Set(ctx, key, "x", time.Minute).Err(); err != nil {
		t.Fatalf("SET after the slot moved: %v", err)
	}
	if n := count(t, reader, "svc.redis.redirections", "svc.redis.redirection", "moved"); n < 1 {
		t.Fatalf("svc.redis.redirections{moved} = %d, want at least 1", n)
	}

	if err := c.Check(ctx); err != nil { // the primaries before
		t.Fatal(err)
	}
	old := cl.PrimaryOf(t, key)
	old.Stop()
	cl.WaitOK(t, key, old.Addr)
	deadline := time.Now().Add(30 * time.Second)
	for count(t, reader, "svc.redis.failovers", "svc.redis.mode", "cluster") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("svc.redis.failovers{cluster} stayed 0 after a replica took over")
		}
		_ = c.Check(ctx) // ready: the other primaries answer
		time.Sleep(100 * time.Millisecond)
	}
	if err := c.Check(ctx); err != nil {
		t.Fatalf("not ready with two of three primaries and the third promoted: %v", err)
	}
	if logs.FilterMessageSnippet("a new primary took over").Len() == 0 {
		t.Fatal("no failover warning")
	}
}

// On Sentinel, the first connection after the promotion reaches the new
// primary: svc.redis.failovers counts it and a warning names both.
func TestSentinelFailoverIsCounted(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a Sentinel set is six processes")
	}
	set := redistest.StartSentinel(t)
	reader := sdkmetric.NewManualReader()
	core, logs := observer.New(zapcore.InfoLevel)
	c, err := redisstore.Open(t.Context(), redisstore.Config{URL: secret.URL(set.URL), Mode: redisstore.ModeSentinel, Timeout: 2 * time.Second},
		redisstore.MeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))), redisstore.Logger(zap.New(core)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	old := set.KillPrimary(t)
	if err := c.Check(t.Context()); err == nil {
		t.Fatal("ready with the primary killed and none promoted")
	}
	set.WaitPromoted(t, old.Addr)
	deadline := time.Now().Add(30 * time.Second)
	for c.Check(t.Context()) != nil {
		if time.Now().After(deadline) {
			t.Fatal("not ready 30 s after the promotion")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := count(t, reader, "svc.redis.failovers", "svc.redis.mode", "sentinel"); n != 1 {
		t.Fatalf("svc.redis.failovers{sentinel} = %d, want 1", n)
	}
	if e := logs.FilterMessageSnippet("a new primary took over").All(); len(e) != 1 || e[0].ContextMap()["svc.redis.from"] != old.Addr {
		t.Fatalf("failover warnings: %v", e)
	}
}
