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

// A slot migrated to another primary under a client that knows the old
// map: the client follows ASK during the migration and MOVED after it,
// the commands succeed and svc.redis.redirections counts both. Then the
// failovers and the Cluster's state (clusterRolesAndState).
func TestClusterRedirectionsAndFailoversAreCounted(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a Cluster is six processes")
	}
	cl := redistest.StartCluster(t)
	reader := sdkmetric.NewManualReader()
	installMeters(t, sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	c, err := redisstore.Open(t.Context(), redisstore.Config{URL: secret.URL(cl.URL), Mode: "cluster", Timeout: 2 * time.Second})
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
	// MOVED: a resharding this client took no part in moves a slot, and
	// the old owner's MOVED is followed and counted. First, because the
	// ASK below makes go-redis reload its map in the background, and a
	// reload that lands after a later move would spare it the MOVED.
	const movedKey = "moved-by-a-resharding"
	if slot(movedKey) == slot(key) {
		t.Fatal("the two keys share a slot: pick another name")
	}
	if err := cc.Set(ctx, movedKey, "y", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	cl.MoveSlotOf(t, movedKey)
	if v, err := cc.Get(ctx, movedKey).Result(); err != nil || v != "y" {
		t.Fatalf("GET after its slot moved: %q %v", v, err)
	}
	if n := count(t, reader, "svc.redis.redirections", "svc.redis.redirection", "moved"); n < 1 {
		t.Fatalf("svc.redis.redirections{moved} = %d, want at least 1", n)
	}
	// Migrate the (empty) slot of key to another primary as a resharding
	// does: the target imports, the source migrates. A new key is then
	// answered ASK by the source, and found at the target once the slot is
	// the target's.
	s := slot(key)
	owner, err := cc.MasterForKey(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	var from, to string
	nodes := map[string]*redis.Client{} // by node ID
	for _, n := range cl.Nodes {
		rdb := redis.NewClient(&redis.Options{Addr: n.Addr})
		t.Cleanup(func() { _ = rdb.Close() })
		id, err := rdb.ClusterMyID(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		nodes[id] = rdb
		role, err := rdb.Do(ctx, "ROLE").Slice()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case role[0] != "master":
		case n.Addr == owner.Options().Addr:
			from = id
		case to == "":
			to = id
		}
	}
	setslot := func(id string, args ...any) {
		t.Helper()
		if err := nodes[id].Do(ctx, append([]any{"CLUSTER", "SETSLOT", s}, args...)...).Err(); err != nil {
			t.Fatalf("CLUSTER SETSLOT %d %v on %s: %v", s, args, id, err)
		}
	}
	setslot(to, "IMPORTING", from)
	setslot(from, "MIGRATING", to)
	if err := cc.Set(ctx, key, "x", time.Minute).Err(); err != nil {
		t.Fatalf("SET while the slot migrates: %v", err)
	}
	if n := count(t, reader, "svc.redis.redirections", "svc.redis.redirection", "ask"); n < 1 {
		t.Fatalf("svc.redis.redirections{ask} = %d, want at least 1", n)
	}
	setslot(to, "NODE", to)
	setslot(from, "NODE", to)
	for id := range nodes {
		if id != to && id != from {
			_ = nodes[id].Do(ctx, "CLUSTER", "SETSLOT", s, "NODE", to).Err() // replicas refuse; gossip tells them
		}
	}
	if v, err := cc.Get(ctx, key).Result(); err != nil || v != "x" {
		t.Fatalf("GET after the slot moved: %q %v", v, err)
	}

	clusterRolesAndState(t, cl, key)
}

// On Sentinel, the first connection after the promotion reaches the new
// primary: svc.redis.failovers counts it and a warning names both.
func TestSentinelFailoverIsCounted(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a Sentinel set is six processes")
	}
	set := redistest.StartSentinel(t)
	wrongTopologies(t, set)
	reader := sdkmetric.NewManualReader()
	core, logs := observer.New(zapcore.InfoLevel)
	installMeters(t, sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	c, err := redisstore.Open(t.Context(), redisstore.Config{URL: secret.URL(set.URL), Mode: "sentinel", Timeout: 2 * time.Second}, redisstore.Logger(zap.New(core)))
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

// wrongTopologies is issue 37 item 7 on the set of
// TestSentinelFailoverIsCounted: a sentinel or a replica given to the
// single mode, and a master_name the sentinels do not monitor, fail the
// start with an error that says so and names the setting to change, on
// one line.
func wrongTopologies(t *testing.T, set *redistest.Sentinel) {
	for _, tc := range []struct {
		name, mode, url string
		want            []string
	}{
		{"a sentinel in the single mode", "single", set.Sentinels[0].URL, []string{"is a Redis Sentinel", "SVC_REDIS_MODE=sentinel", "master_name"}},
		{"a replica in the single mode", "single", set.Data[1].URL, []string{"is a replica of " + set.Data[0].Addr, "SVC_REDIS_MODE=sentinel"}},
		{"an unknown master_name", "sentinel", strings.Replace(set.URL, "master_name="+redistest.MasterName, "master_name=nosuch", 1),
			[]string{`the sentinels know no primary named "nosuch"`, "sentinel monitor", "SVC_REDIS_URL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := redisstore.Open(t.Context(), redisstore.Config{URL: secret.URL(tc.url), Mode: tc.mode, Timeout: 2 * time.Second})
			if err == nil {
				_ = c.Close()
				t.Fatal("Open succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Open = %v, want it to hold %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("Open = %q, over several lines", err)
			}
		})
	}
}
