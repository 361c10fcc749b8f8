package redisstore_test

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/secret"
)

// clusterRolesAndState is issue 37 items 3, 6 and 7 on the Cluster of
// TestClusterRedirectionsAndFailoversAreCounted (one Cluster for both):
// a Cluster node given to the single mode is refused naming
// SVC_REDIS_MODE; a primary that misses a readiness check is no failover;
// the promotion after the primary of key is killed is counted once,
// naming the node that left; then that shard wholly down makes the
// Cluster, and so readiness, fail under cluster-require-full-coverage yes
// and not under no.
func clusterRolesAndState(t *testing.T, c *redistest.Cluster, key string) {
	ctx := t.Context()

	t.Run("a Cluster node in the single mode", func(t *testing.T) {
		_, err := redisstore.Open(ctx, redisstore.Config{URL: secret.URL(c.Nodes[0].URL), Timeout: 2 * time.Second})
		if err == nil || !strings.Contains(err.Error(), "SVC_REDIS_MODE=cluster") || !strings.Contains(err.Error(), "SVC_REDIS_URL") {
			t.Fatalf("Open = %v, want a refusal naming SVC_REDIS_URL and SVC_REDIS_MODE=cluster", err)
		}
	})

	core, logs := observer.New(zap.InfoLevel)
	reader := sdkmetric.NewManualReader()
	installMeters(t, sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	cl, err := redisstore.Open(ctx, redisstore.Config{URL: secret.URL(c.URL), Mode: "cluster", Timeout: time.Second},
		redisstore.Logger(zap.New(core)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	failovers := func() int64 { return count(t, reader, "svc.redis.failovers", "svc.redis.mode", "cluster") }

	primary := c.PrimaryOf(t, key)
	t.Run("a primary that misses a check is no failover", func(t *testing.T) {
		rdb := redisClientOf(t, primary)
		// Its clients wait; the Cluster's bus does not, so no node fails.
		if err := rdb.Do(ctx, "CLIENT", "PAUSE", 2500, "ALL").Err(); err != nil {
			t.Fatal(err)
		}
		if err := cl.Check(ctx); err != nil {
			t.Fatalf("Check with one primary slow: %v, want ready (the others answer)", err)
		}
		if err := rdb.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
			t.Fatal(err)
		}
		for range 3 { // and every node's role is known before the kill
			waitCheck(t, cl, nil)
		}
		if n := failovers(); n != 0 || logs.FilterMessageSnippet("took over").Len() != 0 {
			t.Fatalf("%d failovers counted, logged %v; none happened", n, logs.FilterMessageSnippet("took over").All())
		}
	})

	t.Run("a promotion is counted once, naming the node that left", func(t *testing.T) {
		primary.Stop()
		c.WaitOK(t, key, primary.Addr)
		promoted := c.PrimaryOf(t, key)
		for range 3 {
			waitCheck(t, cl, nil)
		}
		w := logs.FilterMessageSnippet("took over").All()
		if n := failovers(); n != 1 || len(w) != 1 {
			t.Fatalf("svc.redis.failovers = %d, warnings %v; want one", n, w)
		}
		if f := w[0].ContextMap(); f["svc.redis.from"] != primary.Addr || f["svc.redis.to"] != promoted.Addr {
			t.Errorf("the warning names %v -> %v, want %s -> %s", f["svc.redis.from"], f["svc.redis.to"], primary.Addr, promoted.Addr)
		}
	})

	t.Run("a shard wholly down", func(t *testing.T) {
		// The promoted node has no replica left: its slots have no primary.
		promoted := c.PrimaryOf(t, key)
		promoted.Stop()
		err := waitCheck(t, cl, func(err error) bool { return err != nil })
		if !strings.Contains(err.Error(), "cluster_state:fail") || !strings.Contains(err.Error(), "cluster-require-full-coverage") || !strings.Contains(err.Error(), "SVC_REDIS_URL") {
			t.Errorf("Check = %v, want it to name cluster_state:fail and cluster-require-full-coverage", err)
		}
		for _, n := range c.Nodes {
			if n != primary && n != promoted {
				if err := redisClientOf(t, n).ConfigSet(ctx, "cluster-require-full-coverage", "no").Err(); err != nil {
					t.Fatal(err)
				}
			}
		}
		waitCheck(t, cl, nil) // the other shards serve their keys
	})
}

// waitCheck polls cl.Check for 15 s until done says its error is the one
// awaited (nil done: until it succeeds), and returns that error.
func waitCheck(t *testing.T, cl *redisstore.Client, done func(error) bool) error {
	t.Helper()
	if done == nil {
		done = func(err error) bool { return err == nil }
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		err := cl.Check(t.Context())
		if done(err) {
			return err
		}
		if time.Now().After(deadline) {
			t.Fatalf("Check after 15 s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func redisClientOf(t *testing.T, n *redistest.Server) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: n.Addr, Username: n.User, Password: n.Password})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}
