package redisstore_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"

	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/store"
	"github.com/svckit/svc/secret"
)

// roundTrips counts the svc.redis.duration points and svc.redis.errors of op.
func roundTrips(t *testing.T, reader *sdkmetric.ManualReader, op string) (measured uint64, failed int64) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	want := attribute.StringValue(op)
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					if v, _ := p.Attributes.Value("db.operation.name"); v == want && m.Name == "svc.redis.duration" {
						measured += p.Count
					}
				}
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					if v, _ := p.Attributes.Value("db.operation.name"); v == want && m.Name == "svc.redis.errors" {
						failed += p.Value
					}
				}
			}
		}
	}
	return measured, failed
}

func TestClientStoresUseItsPrefixTimeoutAndMetrics(t *testing.T) {
	redistest.EachEngine(t, testClientStoresUseItsPrefixTimeoutAndMetrics)
}

func testClientStoresUseItsPrefixTimeoutAndMetrics(t *testing.T, engine redistest.Option) {
	reader := meters(t)
	srv := redistest.Start(t, engine)
	c, err := redisstore.New(redisstore.Config{URL: secret.URL(srv.URL), Prefix: "svc-a:", Timeout: 200 * time.Millisecond},
		redisstore.Logger(zap.NewNop()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	b, f := c.Bans(), c.Flood()
	ctx := context.Background()
	<-redisstore.Synced(b)
	if _, started, err := b.Fail(ctx, "a", time.Now(), store.BanRule{Name: "default", Threshold: 1, Window: time.Minute, Duration: time.Minute}); !started || err != nil {
		t.Fatalf("Fail: %v %v", started, err)
	}
	if _, ok, err := f.Allow(ctx, "a", time.Now(), store.FloodRule{Rate: 1, Burst: 1}); !ok || err != nil {
		t.Fatalf("Allow: %v %v", ok, err)
	}
	admin := newClient(t, srv.Addr)
	for _, k := range []string{"svc-a:{bans}:active", "svc-a:flood:a"} {
		if n, err := admin.Exists(ctx, k).Result(); n != 1 || err != nil {
			t.Fatalf("key %s not under the Config's prefix: %v %v", k, n, err)
		}
	}
	srv.Stop()
	start := time.Now()
	if _, started, err := b.Fail(ctx, "b", time.Now(), store.BanRule{Name: "default", Threshold: 1, Window: time.Minute, Duration: time.Minute}); started || err == nil {
		t.Fatal("Fail succeeded with Redis stopped")
	}
	if _, _, err := f.Allow(ctx, "a", time.Now(), store.FloodRule{Rate: 1, Burst: 1}); err == nil {
		t.Fatal("Allow with Redis stopped reported no error (the Limit fails open on it)")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("two operations took %v with a 200 ms timeout", d)
	}
	for _, c := range []struct {
		op             string
		measured, fail int64
	}{{"bans.fail", 2, 1}, {"flood.allow", 2, 1}} {
		m, f := roundTrips(t, reader, c.op)
		if int64(m) != c.measured || f != c.fail {
			t.Errorf("%s: %d round trips measured, %d errors; want %d and %d", c.op, m, f, c.measured, c.fail)
		}
	}
	if m, _ := roundTrips(t, reader, "bans.resync"); m == 0 {
		t.Error("the resync is not measured")
	}
}

// The client owns the subscribers of its ban stores: one starts at the
// store's first use, Close stops it, and a closed store does not start it
// again.
func TestClientCloseStopsTheBanSubscriber(t *testing.T) {
	srv := redistest.Start(t)
	c, err := redisstore.New(redisstore.Config{URL: secret.URL(srv.URL), Timeout: 200 * time.Millisecond},
		redisstore.Logger(zap.NewNop()))
	if err != nil {
		t.Fatal(err)
	}
	b := c.Bans()
	if redisstore.Stopped(b) {
		t.Fatal("a new store reports itself stopped")
	}
	select {
	case <-redisstore.Synced(b):
	case <-time.After(10 * time.Second):
		t.Fatal("the ban store never read the ban set")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !redisstore.Stopped(b) {
		t.Fatal("Close left the ban subscriber running")
	}
	if _, banned := b.Banned("default", "203.0.113.7", time.Now()); banned || !redisstore.Stopped(b) {
		t.Fatal("a closed store started its subscriber again")
	}
}
