package metrics_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/svckit/svc/modules/metrics"
	metricsprom "github.com/svckit/svc/modules/metrics/prometheus"
)

var ctx = context.Background()

// Other errors table: config, provider and meter before entry.
func TestBeforeStart(t *testing.T) {
	cleanEnv(t)
	m, err := metrics.FromConfig(metrics.Config{Exporter: "prometheus"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Config(); !errors.Is(err, metrics.ErrNotStarted) {
		t.Errorf("Config before start: %v", err)
	}
	if _, err := m.Provider(); !errors.Is(err, metrics.ErrNotStarted) {
		t.Errorf("Provider before start: %v", err)
	}
	if _, err := m.Meter("x"); !errors.Is(err, metrics.ErrNotStarted) {
		t.Errorf("Meter before start: %v", err)
	}
	if _, err := m.Counter("x"); !errors.Is(err, metrics.ErrNotStarted) {
		t.Errorf("Counter before start: %v", err)
	}
	if _, err := m.Histogram("x"); !errors.Is(err, metrics.ErrNotStarted) {
		t.Errorf("Histogram before start: %v", err)
	}
	if _, err := m.UpDownCounter("x"); !errors.Is(err, metrics.ErrNotStarted) {
		t.Errorf("UpDownCounter before start: %v", err)
	}
	if _, err := m.Gauge("x"); !errors.Is(err, metrics.ErrNotStarted) {
		t.Errorf("Gauge before start: %v", err)
	}
	if _, err := m.Config(); !errors.Is(err, metrics.ErrNotStarted) {
		t.Errorf("Config before start: %v", err)
	}
	if m.Active() || m.OwnsGlobalState() {
		t.Error("not active before start")
	}
	if metricsprom.Registry(m) == nil {
		t.Error("a prometheus component has its registry from construction on")
	}
	if err := m.Close(ctx); err != nil {
		t.Errorf("Close before Open: %v", err)
	}
}

// States table: auto-disabled → inactive, nothing installed, no-op meter.
func TestAutoDisabledIsInactive(t *testing.T) {
	cleanEnv(t)
	before := otel.GetMeterProvider()
	m, err := metrics.New()
	if err != nil {
		t.Fatal(err)
	}
	if m.Exporter() != "none" {
		t.Fatalf("auto with no endpoint resolved to %q", m.Exporter())
	}
	if err := m.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	if m.Active() || m.OwnsGlobalState() {
		t.Fatal("an auto-disabled component must be inactive")
	}
	if otel.GetMeterProvider() != before {
		t.Fatal("an inactive component must install nothing")
	}
	if metrics.GlobalProvider() != nil {
		t.Fatal("nothing must be current")
	}
	if _, err := m.Provider(); !errors.Is(err, metrics.ErrInactive) {
		t.Fatalf("Provider when inactive: %v", err)
	}
	if c, err := m.Config(); err != nil || c.Exporter != "none" {
		t.Fatalf("Config when inactive: %v %v", c, err)
	}
	mt, err := m.Meter("x")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mt.(noop.Meter); !ok {
		t.Fatalf("inactive meter is %T, want a no-op meter", mt)
	}
	c, err := m.Counter("svc.x")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(ctx, 1) // no-op, no panic
	if metricsprom.Registry(m) != nil {
		t.Fatal("registry only for prometheus")
	}
}

// States table: installed as the global provider, previous remembered and
// restored on exit.
func TestInstallAndRestoreGlobal(t *testing.T) {
	cleanEnv(t)
	before := otel.GetMeterProvider()
	m := openProm(t)
	if otel.GetMeterProvider() == before {
		t.Fatal("open must install a global provider")
	}
	if metrics.SavedGlobal() != before {
		t.Fatal("the previous global provider must be remembered")
	}
	if !m.Active() || !m.OwnsGlobalState() {
		t.Fatal("an open prometheus component is active and owns the global state")
	}
	p, err := m.Provider()
	if err != nil || p == nil {
		t.Fatalf("Provider: %v", err)
	}
	if metrics.GlobalProvider() != p {
		t.Fatal("the global bridge must forward to this component's provider")
	}
	// An instrument from the global records into this component.
	c, err := otel.Meter("test.global").Int64Counter("svc.global.hits")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(ctx, 3)
	if v, ok := sample(scrape(t, m), "svc_global_hits_total", nil); !ok || v != 3 {
		t.Fatalf("global instrument: %v %v", v, ok)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if otel.GetMeterProvider() != before {
		t.Fatal("close must restore the previous global provider")
	}
	if m.OwnsGlobalState() || m.Active() || metrics.GlobalProvider() != nil {
		t.Fatal("closed component owns nothing")
	}
	c.Add(ctx, 1) // no component: dropped, no panic
	if _, err := m.Provider(); err != nil {
		t.Fatalf("Provider after close: %v", err)
	}
}

// Meter is cached per scope.
func TestMeterCachedPerScope(t *testing.T) {
	cleanEnv(t)
	m := openProm(t)
	a, _ := m.Meter("a")
	a2, _ := m.Meter("a")
	b, _ := m.Meter("b")
	if a != a2 || a == b {
		t.Fatal("Meter must return one meter per scope name")
	}
}

// The four factories with unit and description options.
func TestInstrumentFactories(t *testing.T) {
	cleanEnv(t)
	m := openProm(t)
	c, err := m.Counter("svc.jobs", metrics.WithDescription("Jobs done."), metrics.WithUnit("{job}"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := m.Histogram("svc.latency", metrics.WithUnit("s"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := m.UpDownCounter("svc.queue")
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Gauge("svc.temperature", metrics.WithUnit("Cel"))
	if err != nil {
		t.Fatal(err)
	}
	c.Add(ctx, 2)
	h.Record(ctx, 0.25)
	h.Record(ctx, 0.5)
	u.Add(ctx, 5)
	u.Add(ctx, -2)
	g.Record(ctx, 20)
	g.Record(ctx, 21.5)
	fams := scrape(t, m)
	checks := []struct {
		name string
		want float64
	}{
		{"svc_jobs_total", 2}, {"svc_latency_seconds", 2}, {"svc_queue", 3}, {"svc_temperature_celsius", 21.5},
	}
	for _, ck := range checks {
		if v, ok := sample(fams, ck.name, nil); !ok || v != ck.want {
			t.Errorf("%s = %v (%v), want %v; families: %v", ck.name, v, ok, ck.want, keys(fams))
		}
	}
	if b := fams["svc_latency_seconds"].GetMetric()[0].GetHistogram().GetBucket(); len(b) != len(metrics.SecondsBuckets)+1 || b[0].GetUpperBound() != 0.005 {
		t.Errorf("a histogram in seconds gets SecondsBuckets, got %v", b)
	}
	h2, _ := m.Histogram("svc.sizes", metrics.WithUnit("By"), metrics.WithBuckets(10, 100))
	h2.Record(ctx, 50)
	if b := scrape(t, m)["svc_sizes_bytes"].GetMetric()[0].GetHistogram().GetBucket(); len(b) != 3 || b[1].GetUpperBound() != 100 {
		t.Errorf("WithBuckets: %v", b)
	}
	if got := fams["svc_jobs_total"].GetHelp(); got != "Jobs done." {
		t.Errorf("description = %q", got)
	}
	if _, err := m.Counter("9 bad name"); err == nil {
		t.Error("an invalid instrument name must be reported")
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestOpenTwiceRefused(t *testing.T) {
	cleanEnv(t)
	m := openProm(t)
	if err := m.Open(ctx); err == nil || !strings.Contains(err.Error(), "already opened") {
		t.Fatalf("second Open: %v", err)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := m.Open(ctx); err == nil || !strings.Contains(err.Error(), "already opened") {
		t.Fatalf("Open after Close: %v", err)
	}
}

// Two components open at once (parallel apps in one process): the later
// one is current; closing out of order hands back to the one still open
// and restores the original global only when the last closes.
func TestOverlappingComponents(t *testing.T) {
	cleanEnv(t)
	before := otel.GetMeterProvider()
	a := openProm(t)
	b := openProm(t)
	pa, _ := a.Provider()
	pb, _ := b.Provider()
	if metrics.GlobalProvider() != pb || !b.OwnsGlobalState() || a.OwnsGlobalState() {
		t.Fatal("the later component must be current")
	}
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if metrics.GlobalProvider() != pa || !a.OwnsGlobalState() {
		t.Fatal("closing the later one hands back to the earlier one")
	}
	b2 := openProm(t)
	if err := a.Close(ctx); err != nil { // out of order
		t.Fatal(err)
	}
	pb2, _ := b2.Provider()
	if metrics.GlobalProvider() != pb2 || otel.GetMeterProvider() == before {
		t.Fatal("closing a non-current component must leave the current one alone")
	}
	if err := b2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if otel.GetMeterProvider() != before || metrics.GlobalProvider() != nil {
		t.Fatal("the last close restores the original global provider")
	}
}

// Someone replacing the global provider while a component is open keeps
// theirs when the component closes.
func TestForeignGlobalKeptOnClose(t *testing.T) {
	cleanEnv(t)
	before := otel.GetMeterProvider()
	defer otel.SetMeterProvider(before)
	m := openProm(t)
	theirs := sdkmetric.NewMeterProvider()
	defer theirs.Shutdown(ctx)
	otel.SetMeterProvider(theirs)
	if m.OwnsGlobalState() {
		t.Fatal("a replaced global is not ours")
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if otel.GetMeterProvider() != theirs {
		t.Fatal("close must not clobber a provider someone else installed")
	}
}

// Config hands out copies: a caller changing the maps changes nothing.
func TestConfigIsACopy(t *testing.T) {
	cleanEnv(t)
	in := metrics.Config{Exporter: "prometheus", Export: metrics.Export{ResourceAttributes: map[string]string{"a": "1"}}}
	m, err := metrics.FromConfig(in)
	if err != nil {
		t.Fatal(err)
	}
	in.ResourceAttributes["a"] = "changed"
	_ = m.Open(ctx)
	defer m.Close(ctx)
	c, _ := m.Config()
	c.ResourceAttributes["a"] = "again"
	c2, _ := m.Config()
	if c2.ResourceAttributes["a"] != "1" {
		t.Fatalf("config shares maps with callers: %v", c2.ResourceAttributes)
	}
}
