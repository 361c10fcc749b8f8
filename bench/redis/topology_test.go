package redis_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/svckit/svc/bench/internal/pair"
	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/secret"
)

// BenchmarkRateLimitTopologiesPaired is BenchmarkRateLimitVsPingPaired on
// a Sentinel set and on a Cluster, for the whole-millisecond limit, each
// in two pairs:
//
//   - svc/direct: the check through the topology's client against the
//     same check through a plain one-Redis client (SVC_REDIS_MODE=single)
//     to the same primary. It is what the topology itself costs svc: the
//     Sentinel goal ("the same as on one Redis") is ≈ 1.0 here. Sentinel
//     only: a single-mode client refuses a Cluster node at Open (it would
//     answer MOVED for every other node's keys).
//
//   - svc/ping: the check against one PING to the primary (through the
//     Sentinel client; on a Cluster to the primary of the budget's key,
//     the node the check goes to). The Cluster goal is ≤ 1.3 here.
//
// Run it with:
//
//	cd bench && go test -run '^$' -bench 'TopologiesPaired' -benchmem -count 6 ./redis
func BenchmarkRateLimitTopologiesPaired(b *testing.B) {
	r := rates[0]
	ctx := context.Background()
	pairs := func(b *testing.B, c *redisstore.Client, primary string, ping func(context.Context) error) {
		svc := allow(b, c.Rates(), r.rate)
		pingOnce := func() {
			if err := ping(ctx); err != nil {
				b.Fatal(err)
			}
		}
		if primary != "" {
			one := allow(b, openMode(b, "redis://"+primary, "single").Rates(), r.rate)
			b.Run("svc-vs-direct", func(b *testing.B) {
				b.ReportAllocs()
				sa, sz := pair.Paired(b, 16, svc, one)
				pair.Report(b, "svc", "direct", sa, sz)
			})
		}
		b.Run("svc-vs-ping", func(b *testing.B) {
			b.ReportAllocs()
			sa, sz := pair.Paired(b, 16, svc, pingOnce)
			pair.Report(b, "svc", "ping", sa, sz)
		})
	}
	b.Run("sentinel", func(b *testing.B) {
		set := redistest.StartSentinel(b)
		c := openMode(b, set.URL, "sentinel")
		primary, err := set.PrimaryAddr(ctx)
		if err != nil {
			b.Fatal(err)
		}
		pairs(b, c, primary, func(ctx context.Context) error { return c.Redis().Ping(ctx).Err() })
	})
	cluster := func(b *testing.B, opts ...redistest.Option) {
		cl := redistest.StartCluster(b, opts...)
		c := openMode(b, cl.URL, "cluster")
		node := primaryOfBudget(b, c.Redis().(*redis.ClusterClient))
		pairs(b, c, "", func(ctx context.Context) error { return node.Ping(ctx).Err() })
	}
	b.Run("cluster", func(b *testing.B) { cluster(b) })
	// The same Cluster with no replica: on this box a replica shares the
	// primary's two cores, and the primary sends it every write (a PING
	// writes nothing), which is the server's cost, not svc's.
	b.Run("cluster-no-replicas", func(b *testing.B) { cluster(b, redistest.NoReplicas()) })
}

func openMode(b *testing.B, url, mode string) *redisstore.Client {
	c, err := redisstore.Open(context.Background(), redisstore.Config{URL: secret.URL(url), Mode: mode, Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	return c
}

// primaryOfBudget returns the go-redis client of the primary of the
// benchmark's budget key (the key redisstore builds: prefix, kind, parts).
func primaryOfBudget(b *testing.B, cc *redis.ClusterClient) *redis.Client {
	node, err := cc.MasterForKey(context.Background(), "svc:gcra:"+key.Space+":"+key.Owner+":"+key.ID)
	if err != nil {
		b.Fatal(err)
	}
	return node
}
