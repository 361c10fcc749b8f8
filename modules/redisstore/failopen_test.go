package redisstore

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestFailOpenWarnsOnceAMinuteWithTheCountHeldBack(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	now := time.Unix(1_700_000_000, 0)
	prev := otel.GetMeterProvider()
	otel.SetMeterProvider(mp) // where svc.redis.fail_open goes
	t.Cleanup(func() { otel.SetMeterProvider(prev) })
	f := newFailOpen("bans", func() *zap.Logger { return zap.New(core) })
	f.th.now = func() time.Time { return now }
	boom := errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")
	ctx := context.Background()
	for i := 0; i < 4; i++ {
		f.admit(ctx, "bans.fail", boom)
	}
	f.warn("bans.subscribe", boom) // another operation is not hidden
	now = now.Add(time.Minute)
	f.admit(ctx, "bans.fail", boom)
	w := logs.FilterMessageSnippet("failing open").FilterField(zap.String("db.operation.name", "bans.fail")).All()
	if len(w) != 2 || w[0].ContextMap()["svc.suppressed"] != int64(0) || w[1].ContextMap()["svc.suppressed"] != int64(3) {
		t.Fatalf("warnings: %v", w)
	}
	if w[0].ContextMap()["error"] != boom.Error() || w[0].ContextMap()["svc.redis.store"] != "bans" || w[0].Level != zapcore.WarnLevel {
		t.Fatalf("warning fields: %v", w[0].ContextMap())
	}
	if logs.FilterField(zap.String("db.operation.name", "bans.subscribe")).Len() != 1 {
		t.Fatal("a second operation's failure was held back by the first's")
	}
	// Every admitted request is counted, logged or not; a warning that
	// let no request through is not.
	if got := countsByOp(t, reader); len(got) != 1 || got["bans/bans.fail"] != 5 {
		t.Fatalf("svc.redis.fail_open = %v, want only bans/bans.fail = 5", got)
	}
	f.admit(ctx, "bans.fail", boom) // held back
	f.ok()
	f.ok()
	back := logs.FilterMessageSnippet("reaches Redis again").All()
	if len(back) != 1 || back[0].ContextMap()["svc.suppressed"] != int64(1) {
		t.Fatalf("recovery lines: %v", back)
	}
	// A failure soon after the recovery is held back: the minute runs on.
	f.admit(ctx, "bans.fail", boom)
	if n := logs.FilterMessageSnippet("failing open").Len(); n != 3 {
		t.Fatalf("%d warnings, want 3: a recovery reset the limit", n)
	}
}

// Issue 37 item 4: on a Cluster with one shard down, failures and
// successes interleave every few milliseconds. One warning and one
// recovery line per store and minute, whatever the interleaving.
func TestFailOpenInterleavedFailuresWarnOnceAMinute(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	now := time.Unix(1_700_000_000, 0)
	f := newFailOpen("ratelimit", func() *zap.Logger { return zap.New(core) })
	f.th.now = func() time.Time { return now }
	boom := errors.New("CLUSTERDOWN The cluster is down")
	ctx := context.Background()
	for range 2 {
		for range 600 { // one fails, one succeeds, every 100 ms for a minute
			f.admit(ctx, "ratelimit", boom)
			f.ok()
			now = now.Add(50 * time.Millisecond)
			f.ok()
			now = now.Add(50 * time.Millisecond)
		}
	}
	warned := logs.FilterMessageSnippet("failing open").All()
	back := logs.FilterMessageSnippet("reaches Redis again").All()
	if len(warned) != 2 || len(back) != 2 {
		t.Fatalf("%d warnings and %d recovery lines over two minutes of interleaved failures, want 2 and 2", len(warned), len(back))
	}
	// The failures held back after the first recovery line are told of
	// by the next warning.
	if n := warned[1].ContextMap()["svc.suppressed"]; n != int64(599) {
		t.Errorf("the second warning tells of %v failures held back, want 599", n)
	}
}

func countsByOp(t *testing.T, reader *sdkmetric.ManualReader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "svc.redis.fail_open" || m.Unit != "{request}" {
				t.Fatalf("metric %s (%s)", m.Name, m.Unit)
			}
			for _, p := range m.Data.(metricdata.Sum[int64]).DataPoints {
				s, _ := p.Attributes.Value("svc.redis.store")
				op, _ := p.Attributes.Value("db.operation.name")
				got[s.AsString()+"/"+op.AsString()] += p.Value
			}
		}
	}
	return got
}

func TestThrottleOnePerPeriodAndKindWithSuppressedCount(t *testing.T) {
	now := time.Unix(1000, 0)
	th := newThrottle(time.Minute)
	th.now = func() time.Time { return now }
	pass := func(kind string) string {
		n, ok := th.pass(kind)
		return strconv.FormatBool(ok) + "/" + strconv.Itoa(n)
	}
	steps := []struct {
		advance time.Duration
		kind    string
		want    string // passed/suppressed
	}{
		{0, "a", "true/0"},
		{0, "a", "false/0"},
		{0, "b", "true/0"}, // another kind has its own budget
		{59 * time.Second, "a", "false/0"},
		{time.Second, "a", "true/2"}, // a minute after the first: the two held back
		{0, "a", "false/0"},
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		if got := pass(s.kind); got != s.want {
			t.Fatalf("step %d (%s): %s, want %s", i, s.kind, got, s.want)
		}
	}
	if n, tell := th.recovered(); !tell || n != 1 {
		t.Fatalf("recovered: %d %v, want 1 held back", n, tell)
	}
	if _, tell := th.recovered(); tell {
		t.Fatal("a second success told of a recovery again")
	}
	if got := pass("a"); got != "false/0" {
		t.Fatalf("after a recovery, within the minute: %s, want held back", got)
	}
	// Another kind warns on its own budget; its recovery waits for the
	// minute after the last one told.
	now = now.Add(time.Second)
	if got := pass("c"); got != "true/0" {
		t.Fatalf("a new kind: %s", got)
	}
	if _, tell := th.recovered(); tell {
		t.Fatal("a second recovery line within the minute")
	}
	now = now.Add(time.Minute)
	if n, tell := th.recovered(); !tell || n != 1 {
		t.Fatalf("recovered a minute later: %d %v, want told, with the one held back", n, tell)
	}
	// Kinds are bounded: past maxKinds they share one budget.
	for i := range 2 * maxKinds {
		th.pass("kind" + strconv.Itoa(i))
	}
	if len(th.kinds) > maxKinds+1 {
		t.Fatalf("%d kinds kept, want at most %d", len(th.kinds), maxKinds+1)
	}
}
