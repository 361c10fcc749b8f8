package redisstore_test

import (
	"context"
	"errors"
	"math"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/store"
	"github.com/svckit/svc/secret"
)

func TestFromEnv(t *testing.T) {
	cases := []struct {
		name, env, val, want string
	}{
		{"no url", "SVC_REDIS_URL", "", "SVC_REDIS_URL is not set"},
		{"bad pool", "SVC_REDIS_POOL_SIZE", "many", "SVC_REDIS_POOL_SIZE"},
		{"negative pool", "SVC_REDIS_POOL_SIZE", "-1", "SVC_REDIS_POOL_SIZE"},
		{"bad timeout", "SVC_REDIS_TIMEOUT", "soon", "SVC_REDIS_TIMEOUT"},
		{"zero timeout", "SVC_REDIS_TIMEOUT", "0s", "SVC_REDIS_TIMEOUT"},
		{"bad cache bound", "SVC_REDIS_CACHE_MAX_BYTES", "0", "SVC_REDIS_CACHE_MAX_BYTES"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SVC_REDIS_URL", "redis://u:hunter2@127.0.0.1:1/0")
			t.Setenv(tc.env, tc.val)
			_, err := redisstore.FromEnv()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to name %s", err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "many") {
				t.Fatalf("err repeats a value: %v", err)
			}
		})
	}
	t.Run("defaults", func(t *testing.T) {
		t.Setenv("SVC_REDIS_URL", "rediss://u:hunter2@127.0.0.1:1/0")
		c, err := redisstore.FromEnv()
		if err != nil {
			t.Fatal(err)
		}
		if c.Prefix != "svc:" || c.Timeout != 500*time.Millisecond || c.CacheMaxBytes != 1<<20 || c.PoolSize != 0 {
			t.Fatalf("defaults = %+v", c)
		}
		if got := c.URL.String(); got != "rediss://***@127.0.0.1:1/0" {
			t.Fatalf("URL prints %q", got)
		}
	})
}

func TestNewRefusesBadURLWithoutRepeatingIt(t *testing.T) {
	_, err := redisstore.New(redisstore.Config{URL: secret.URL("http://u:hunter2@host/")})
	if err == nil || !strings.Contains(err.Error(), "SVC_REDIS_URL") || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err = %v", err)
	}
}

func TestOpenFailsNamingURL(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	_, err := redisstore.Open(t.Context(), redisstore.Config{URL: secret.URL("redis://:hunter2@" + addr), Timeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "SVC_REDIS_URL redis://***@") || !errors.Is(err, store.ErrUnavailable) || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err = %v", err)
	}
}

func open(t *testing.T, srv *redistest.Server, opts ...redisstore.Option) *redisstore.Client {
	t.Helper()
	c, err := redisstore.Open(t.Context(), redisstore.Config{URL: secret.URL(srv.URL), Timeout: 300 * time.Millisecond}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// The two scripts (whole-millisecond intervals, and any other) answer alike.
// Intervals are an hour long, so that no request comes back during the
// test; the one that is not a whole number of milliseconds takes the
// microsecond script only because the test turns rounding off.
func TestRatesGCRA(t *testing.T) {
	redisstore.RoundIntervalsAbove(t, 24*time.Hour)
	redistest.EachEngine(t, testRatesGCRA)
}

func testRatesGCRA(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	rates := open(t, srv).Rates()
	ctx := t.Context()
	for _, tc := range []struct {
		name     string
		interval time.Duration // long enough that no request comes back during the test
	}{
		{"whole milliseconds", time.Hour},
		{"microseconds", time.Hour + time.Microsecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := store.Key{Space: tc.name, Owner: "iss:1", ID: "alice"}
			r := store.Rate{Interval: tc.interval, Burst: 3}
			for i := range 3 {
				res, err := rates.Allow(ctx, k, r)
				// The whole burst is back (i+1) intervals later.
				reset := time.Duration(i+1) * tc.interval
				if err != nil || !res.Allowed || res.Remaining != 2-i || res.RetryAfter != 0 ||
					res.ResetAfter <= reset-time.Minute || res.ResetAfter > reset {
					t.Fatalf("request %d: %+v, %v", i, res, err)
				}
			}
			res, err := rates.Allow(ctx, k, r)
			if err != nil || res.Allowed || res.Remaining != 0 ||
				res.RetryAfter <= tc.interval-time.Minute || res.RetryAfter > tc.interval ||
				res.ResetAfter-res.RetryAfter != 2*tc.interval {
				t.Fatalf("4th request: %+v, %v", res, err)
			}
			// Another key, or the same parts joined differently, has its own budget.
			other := store.Key{Space: tc.name, Owner: "iss", ID: "1:alice"}
			if res, _ := rates.Allow(ctx, other, r); !res.Allowed || res.Remaining != 2 {
				t.Fatalf("other key: %+v", res)
			}
		})
	}
}

// A limit whose rate changes between deploys (so from one script to the
// other) keeps what was spent: both keep the key's expiry at the
// theoretical arrival time.
func TestRatesCarryOverBetweenScripts(t *testing.T) {
	redisstore.RoundIntervalsAbove(t, 24*time.Hour)
	redistest.EachEngine(t, testRatesCarryOverBetweenScripts)
}

// A budget written by an earlier svc (key kind "rate", the absolute
// theoretical arrival time in the value) is never read, so old and new
// replicas of a rolling upgrade keep apart budgets instead of one failing
// on the other's keys.
func TestRatesIgnoreTheKeysOfAnEarlierVersion(t *testing.T) {
	srv := redistest.Start(t)
	c := open(t, srv)
	ctx := t.Context()
	// Spent far ahead, in the old format: read, it would refuse.
	tat := time.Now().Add(100 * time.Hour).UnixMicro()
	if err := c.Redis().Set(ctx, "svc:rate:old::alice", strconv.FormatInt(tat, 10), time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	for _, r := range []store.Rate{{Interval: time.Hour, Burst: 2}, {Interval: 50*time.Millisecond + time.Microsecond, Burst: 2}} {
		k := store.Key{Space: "old", ID: "alice"}
		if res, err := c.Rates().Allow(ctx, k, r); err != nil || !res.Allowed || res.Remaining != 1 {
			t.Fatalf("interval %v: %+v, %v (want allowed, 1 remaining)", r.Interval, res, err)
		}
		if err := c.Redis().Del(ctx, "svc:gcra:old::alice").Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// A Rate store.Memory refuses is refused here too, not taken for an outage.
func TestRatesRefuseAnInvalidRate(t *testing.T) {
	srv := redistest.Start(t)
	rates := open(t, srv).Rates()
	for _, r := range []store.Rate{{Interval: 0, Burst: 1}, {Interval: -time.Second, Burst: 1}, {Interval: time.Second, Burst: 0}} {
		if res, err := rates.Allow(t.Context(), store.Key{ID: "a"}, r); err == nil || res.Allowed {
			t.Errorf("%+v: %+v, %v (want an error)", r, res, err)
		}
		if _, err := store.NewMemory().Allow(t.Context(), store.Key{ID: "a"}, r); err == nil {
			t.Errorf("%+v: the memory store accepts it", r)
		}
	}
}

// A burst too large for any window of int64 counts as never exhausted.
func TestRatesHugeBurst(t *testing.T) {
	srv := redistest.Start(t)
	rates := open(t, srv).Rates()
	for _, burst := range []int{1 << 42, math.MaxInt} {
		res, err := rates.Allow(t.Context(), store.Key{ID: strconv.Itoa(burst)}, store.Rate{Interval: time.Hour, Burst: burst})
		if err != nil || !res.Allowed || res.Remaining < 0 {
			t.Errorf("burst %d: %+v, %v", burst, res, err)
		}
	}
}

// An interval of at least 100 ms that is not a whole number of milliseconds
// (3/s: 333.33 ms) is rounded up to one: the limit is at most 1 % stricter,
// never looser.
func TestRatesRoundLongIntervalsUp(t *testing.T) {
	srv := redistest.Start(t)
	rates := open(t, srv).Rates()
	ctx := t.Context()
	k := store.Key{Space: "round", ID: "alice"}
	r := store.Rate{Interval: time.Second / 3, Burst: 1}
	res, err := rates.Allow(ctx, k, r)
	if err != nil || !res.Allowed || res.ResetAfter != 334*time.Millisecond {
		t.Fatalf("first request: %+v, %v (want allowed, reset after 334ms)", res, err)
	}
	res, err = rates.Allow(ctx, k, r)
	if err != nil || res.Allowed || res.RetryAfter > 334*time.Millisecond || res.RetryAfter < 200*time.Millisecond {
		t.Fatalf("second request at once: %+v, %v (want refused, retry within 334ms)", res, err)
	}
}

func testRatesCarryOverBetweenScripts(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	rates := open(t, srv).Rates()
	ctx := t.Context()
	// Two requests at the first rate, then a third fits the burst of 3 at
	// the other rate exactly when the first interval is not the longer.
	millis := store.Rate{Interval: time.Hour, Burst: 3}
	longer := store.Rate{Interval: time.Hour + time.Microsecond, Burst: 3}
	shorter := store.Rate{Interval: time.Hour - time.Microsecond, Burst: 3}
	for _, tc := range []struct {
		name         string
		first, after store.Rate
	}{
		{"milliseconds then microseconds", millis, longer},
		{"microseconds then milliseconds", shorter, millis},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := store.Key{Space: "carry", ID: tc.name}
			for range 2 {
				if res, err := rates.Allow(ctx, k, tc.first); err != nil || !res.Allowed {
					t.Fatalf("first rate: %+v, %v", res, err)
				}
			}
			if res, err := rates.Allow(ctx, k, tc.after); err != nil || !res.Allowed || res.Remaining != 0 {
				t.Fatalf("third request, other rate: %+v, %v (want allowed, 0 remaining)", res, err)
			}
			if res, err := rates.Allow(ctx, k, tc.after); err != nil || res.Allowed {
				t.Fatalf("fourth request: %+v, %v (want refused)", res, err)
			}
		})
	}
}

func TestRatesReloadScriptAfterRestart(t *testing.T) {
	redistest.EachEngine(t, testRatesReloadScriptAfterRestart)
}

func testRatesReloadScriptAfterRestart(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	c := open(t, srv)
	k := store.Key{Space: "s", ID: "x"}
	r := store.Rate{Interval: time.Hour, Burst: 1}
	if res, _ := c.Rates().Allow(t.Context(), k, r); !res.Allowed {
		t.Fatal("first refused")
	}
	srv.Restart() // empty data, empty script cache: EVALSHA answers NOSCRIPT
	// The pool's old connections are dead; a fail-open answer is allowed
	// while it notices, but the budget must be enforced again right after.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := c.Check(t.Context()); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no recovery after restart")
		}
	}
	if res, _ := c.Rates().Allow(t.Context(), k, r); !res.Allowed {
		t.Fatal("first request after restart refused")
	}
	if res, _ := c.Rates().Allow(t.Context(), k, r); res.Allowed {
		t.Fatal("budget not enforced after restart: the script did not run")
	}
}

func TestRatesFailOpenWithRateLimitedWarning(t *testing.T) {
	redistest.EachEngine(t, testRatesFailOpenWithRateLimitedWarning)
}

func testRatesFailOpenWithRateLimitedWarning(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	core, logs := observer.New(zap.InfoLevel)
	reader := sdkmetric.NewManualReader()
	installMeters(t, sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	c := open(t, srv, redisstore.Logger(zap.New(core)))
	k := store.Key{Space: "s", ID: "x"}
	r := store.Rate{Interval: time.Hour, Burst: 1}
	c.Rates().Allow(t.Context(), k, r)
	srv.Stop()
	for range 5 {
		res, err := c.Rates().Allow(t.Context(), k, r)
		if err != nil || !res.Allowed {
			t.Fatalf("down: %+v, %v; want allowed (fail open)", res, err)
		}
	}
	w := logs.FilterMessageSnippet("failing open").FilterField(zap.String("svc.redis.store", "ratelimit")).All()
	if len(w) != 1 || w[0].Level != zap.WarnLevel || w[0].ContextMap()["db.operation.name"] != "ratelimit" {
		t.Fatalf("warnings for 5 failures: %v, want 1 per minute", logs.All())
	}
	// Both counters: the failed operation and the request let through.
	errs, failOpen := redisCounters(t, reader)
	if errs["ratelimit"] != 5 || failOpen["ratelimit/ratelimit"] != 5 || len(failOpen) != 1 {
		t.Fatalf("svc.redis.errors %v, svc.redis.fail_open %v; want 5 each for ratelimit", errs, failOpen)
	}
	srv.Restart()
	waitUp(t, c)
	if res, _ := c.Rates().Allow(t.Context(), k, r); !res.Allowed {
		t.Fatal("after recovery: refused (data was lost with the restart)")
	}
	if res, _ := c.Rates().Allow(t.Context(), k, r); res.Allowed {
		t.Fatal("after recovery: budget not enforced")
	}
	// The recovery is logged once, and a second outage within the minute
	// is held back: one warning a minute, however failures and successes
	// interleave (issue 37 item 4).
	if n := logs.FilterMessageSnippet("reaches Redis again").FilterField(zap.String("svc.redis.store", "ratelimit")).Len(); n != 1 {
		t.Fatalf("recovery lines: %d, want 1: %v", n, logs.All())
	}
	srv.Stop()
	c.Rates().Allow(t.Context(), k, r)
	if n := logs.FilterMessageSnippet("failing open").FilterField(zap.String("svc.redis.store", "ratelimit")).Len(); n != 1 {
		t.Fatalf("warnings after a second outage within the minute: %d, want 1: %v", n, logs.All())
	}
}

func waitUp(t *testing.T, c *redisstore.Client) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for c.Check(t.Context()) != nil {
		if time.Now().After(deadline) {
			t.Fatal("client did not recover")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A Redis that accepts connections but never answers: no operation may
// wait for it longer than Timeout (asserted with a bound a loaded machine
// meets: 20× the timeout).
func TestNoOperationOutwaitsTheTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
		}
	}()
	timeout := 100 * time.Millisecond
	c, err := redisstore.New(redisstore.Config{URL: secret.URL("redis://" + l.Addr().String()), Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background() // no deadline of its own
	start := time.Now()
	_, err = c.Idempotency().Claim(ctx, store.Key{ID: "k"}, "fp", "o", time.Minute)
	if err == nil || time.Since(start) > 20*timeout {
		t.Fatalf("claim: %v after %v", err, time.Since(start))
	}
	start = time.Now()
	if res, _ := c.Rates().Allow(ctx, store.Key{ID: "k"}, store.Rate{Interval: time.Second, Burst: 1}); !res.Allowed || time.Since(start) > 20*timeout {
		t.Fatalf("allow: %+v after %v", res, time.Since(start))
	}
}

func TestMetricsByOperation(t *testing.T) {
	srv := redistest.Start(t)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	installMeters(t, mp)
	c := open(t, srv)
	c.Rates().Allow(t.Context(), store.Key{ID: "a"}, store.Rate{Interval: time.Second, Burst: 1})
	srv.Stop()
	c.Cache().Get(t.Context(), store.Key{ID: "a"})

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	durations, errs := map[string]uint64{}, map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				if m.Name != "svc.redis.duration" || m.Unit != "s" {
					t.Errorf("histogram %s (%s)", m.Name, m.Unit)
				}
				for _, p := range d.DataPoints {
					op, _ := p.Attributes.Value("db.operation.name")
					durations[op.AsString()] += p.Count
				}
			case metricdata.Sum[int64]:
				if m.Name != "svc.redis.errors" {
					t.Errorf("counter %s", m.Name)
				}
				for _, p := range d.DataPoints {
					op, _ := p.Attributes.Value("db.operation.name")
					errs[op.AsString()] += p.Value
				}
			}
		}
	}
	if durations["ratelimit"] != 1 || durations["cache.get"] != 1 || durations["ping"] != 1 {
		t.Fatalf("durations by operation: %v", durations)
	}
	if errs["cache.get"] != 1 || errs["ratelimit"] != 0 {
		t.Fatalf("errors by operation: %v", errs)
	}
}

func TestEnvVariablesListWhatFromEnvReads(t *testing.T) {
	got := strings.Join(redisstore.EnvVariables(), " ")
	want := "SVC_REDIS_URL SVC_REDIS_MODE SVC_REDIS_PREFIX SVC_REDIS_POOL_SIZE SVC_REDIS_TIMEOUT SVC_REDIS_CACHE_MAX_BYTES SVC_REDIS_TLS_CA_FILE"
	if got != want {
		t.Fatalf("EnvVariables() = %s, want %s", got, want)
	}
}

// installMeters makes mp the global meter provider, where the client's
// svc.redis.* go, until the test ends.
func installMeters(t *testing.T, mp metric.MeterProvider) {
	prev := otel.GetMeterProvider()
	otel.SetMeterProvider(mp)
	t.Cleanup(func() { otel.SetMeterProvider(prev) })
}
