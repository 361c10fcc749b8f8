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
// a Sentinel set (against a PING to the primary, through the same client)
// and on a Cluster (against a PING to the primary of the budget's key,
// the node the check goes to), for the whole-millisecond limit.
//
//	cd bench && go test -run '^$' -bench 'TopologiesPaired' -benchmem -count 6 ./redis
func BenchmarkRateLimitTopologiesPaired(b *testing.B) {
	r := rates[0]
	b.Run("sentinel", func(b *testing.B) {
		set := redistest.StartSentinel(b)
		c := openMode(b, set.URL, "sentinel")
		ctx := context.Background()
		ping := func() {
			if err := c.Redis().Ping(ctx).Err(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		sa, sz := pair.Paired(b, 16, allow(b, c.Rates(), r.rate), ping)
		pair.Report(b, "svc", "ping", sa, sz)
	})
	b.Run("cluster", func(b *testing.B) {
		cl := redistest.StartCluster(b)
		c := openMode(b, cl.URL, "cluster")
		ctx := context.Background()
		cc := c.Redis().(*redis.ClusterClient)
		node := primaryOfBudget(b, cc)
		ping := func() {
			if err := node.Ping(ctx).Err(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		sa, sz := pair.Paired(b, 16, allow(b, c.Rates(), r.rate), ping)
		pair.Report(b, "svc", "ping", sa, sz)
	})
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
