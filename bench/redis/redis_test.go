// Benchmarks of the Redis stores on a loopback redis-server started by the
// benchmark (internal/redistest): the two client libraries on one PING and
// one EVALSHA; svc's rate-limit check against one PING on the same
// connection, and against go-redis/redis_rate (GCRA on go-redis), paired.
//
//	cd bench && go test -run '^$' -bench . -benchmem -count 1 ./redis
package redis_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"github.com/svckit/svc/bench/internal/pair"
	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/store"
	"github.com/svckit/svc/secret"
)

const script = `return redis.call('INCR', KEYS[1])`

func clients(b *testing.B) (*redis.Client, rueidis.Client) {
	srv := redistest.Start(b)
	gr := redis.NewClient(&redis.Options{Addr: srv.Addr})
	b.Cleanup(func() { _ = gr.Close() })
	ru, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{srv.Addr}, DisableCache: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ru.Close)
	return gr, ru
}

func BenchmarkClientPing(b *testing.B) {
	gr, ru := clients(b)
	ctx := context.Background()
	b.Run("go-redis", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := gr.Ping(ctx).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rueidis", func(b *testing.B) {
		b.ReportAllocs()
		ping := ru.B().Ping().Build().Pin()
		for b.Loop() {
			if err := ru.Do(ctx, ping).Error(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkClientEvalsha(b *testing.B) {
	gr, ru := clients(b)
	ctx := context.Background()
	b.Run("go-redis", func(b *testing.B) {
		b.ReportAllocs()
		s := redis.NewScript(script)
		keys := []string{"k"}
		for b.Loop() {
			if err := s.Run(ctx, gr, keys).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rueidis", func(b *testing.B) {
		b.ReportAllocs()
		s := rueidis.NewLuaScript(script)
		keys := []string{"k"}
		for b.Loop() {
			if err := s.Exec(ctx, ru, keys, nil).Error(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func svcClient(b *testing.B) *redisstore.Client {
	srv := redistest.Start(b)
	c, err := redisstore.Open(context.Background(), redisstore.Config{URL: secret.URL(srv.URL), Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	return c
}

// Budgets no benchmark exhausts: every call is an admitted request. A
// whole-millisecond interval (10/s, 1000/s) takes svc's two-command
// script, as does one of at least 100 ms (3/s, rounded up to 334 ms); any
// other (5000/s) the three-command one (PTTL, GET, SET).
var (
	key   = store.Key{Space: "bench", Owner: "iss", ID: "alice"}
	rates = []struct {
		name string
		rate store.Rate
	}{
		{"interval=1ms", store.Rate{Interval: time.Millisecond, Burst: 1 << 30}},
		{"interval=200µs", store.Rate{Interval: 200 * time.Microsecond, Burst: 1 << 30}},
		{"interval=333.3ms", store.Rate{Interval: time.Second / 3, Burst: 1 << 30}},
	}
)

func allow(b *testing.B, s store.Rates, rate store.Rate) func() {
	ctx := context.Background()
	return func() {
		if res, err := s.Allow(ctx, key, rate); err != nil || !res.Allowed {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

func BenchmarkRateLimitVsPingPaired(b *testing.B) {
	c := svcClient(b)
	ctx := context.Background()
	ping := func() {
		if err := c.Redis().Ping(ctx).Err(); err != nil {
			b.Fatal(err)
		}
	}
	for _, r := range rates {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			sa, sz := pair.Paired(b, 16, allow(b, c.Rates(), r.rate), ping)
			pair.Report(b, "svc", "ping", sa, sz)
		})
	}
}

func BenchmarkRateLimitVsRedisRatePaired(b *testing.B) {
	c := svcClient(b)
	ctx := context.Background()
	lim := redis_rate.NewLimiter(c.Redis())
	limit := redis_rate.Limit{Rate: 1 << 30, Burst: 1 << 30, Period: time.Second}
	peer := func() {
		if res, err := lim.Allow(ctx, "alice", limit); err != nil || res.Allowed != 1 {
			b.Fatalf("%+v %v", res, err)
		}
	}
	for _, r := range rates {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			sa, sz := pair.Paired(b, 16, allow(b, c.Rates(), r.rate), peer)
			pair.Report(b, "svc", "redis_rate", sa, sz)
		})
	}
}

func BenchmarkRateLimitAllocs(b *testing.B) {
	c := svcClient(b)
	for _, r := range rates {
		b.Run(r.name, func(b *testing.B) {
			f := allow(b, c.Rates(), r.rate)
			b.ReportAllocs()
			for b.Loop() {
				f()
			}
		})
	}
}

func BenchmarkRedisRateAllocs(b *testing.B) {
	c := svcClient(b)
	ctx := context.Background()
	lim := redis_rate.NewLimiter(c.Redis())
	limit := redis_rate.Limit{Rate: 1 << 30, Burst: 1 << 30, Period: time.Second}
	b.ReportAllocs()
	for b.Loop() {
		if res, err := lim.Allow(ctx, "alice", limit); err != nil || res.Allowed != 1 {
			b.Fatalf("%+v %v", res, err)
		}
	}
}
