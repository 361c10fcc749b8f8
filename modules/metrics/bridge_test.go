package metrics_test

import (
	"context"
	"fmt"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
)

// Every instrument kind made from the global meter records through the
// bridge into the open component, and a callback unregistered stops.
func TestBridgeEveryInstrumentKind(t *testing.T) {
	cleanEnv(t)
	m := openProm(t)
	// The bridge outlives tests: a scope of its own per run keeps -count=N
	// runs from observing the previous runs' callbacks.
	kindsRun++
	scope := fmt.Sprintf("bridge.kinds.%d", kindsRun)
	mt := otel.Meter(scope)
	i64c, _ := mt.Int64Counter("k.i64c")
	f64c, _ := mt.Float64Counter("k.f64c")
	i64u, _ := mt.Int64UpDownCounter("k.i64u")
	f64u, _ := mt.Float64UpDownCounter("k.f64u")
	i64h, _ := mt.Int64Histogram("k.i64h")
	f64h, _ := mt.Float64Histogram("k.f64h")
	i64g, _ := mt.Int64Gauge("k.i64g")
	f64g, _ := mt.Float64Gauge("k.f64g")
	cb := func(v int64) metric.Int64Callback {
		return func(_ context.Context, o metric.Int64Observer) error { o.Observe(v); return nil }
	}
	fcb := func(v float64) metric.Float64Callback {
		return func(_ context.Context, o metric.Float64Observer) error { o.Observe(v); return nil }
	}
	_, _ = mt.Int64ObservableCounter("k.oi64c", metric.WithInt64Callback(cb(11)))
	_, _ = mt.Int64ObservableUpDownCounter("k.oi64u", metric.WithInt64Callback(cb(12)))
	_, _ = mt.Int64ObservableGauge("k.oi64g", metric.WithInt64Callback(cb(13)))
	_, _ = mt.Float64ObservableCounter("k.of64c", metric.WithFloat64Callback(fcb(14)))
	_, _ = mt.Float64ObservableUpDownCounter("k.of64u", metric.WithFloat64Callback(fcb(15)))
	_, _ = mt.Float64ObservableGauge("k.of64g", metric.WithFloat64Callback(fcb(16)))
	reg1, _ := mt.Int64ObservableGauge("k.reg")
	reg, err := mt.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(reg1, 17)
		return nil
	}, reg1)
	if err != nil {
		t.Fatal(err)
	}
	if !i64c.Enabled(ctx) || !f64h.Enabled(ctx) {
		t.Fatal("instruments of an active component are enabled")
	}
	i64c.Add(ctx, 1)
	f64c.Add(ctx, 2)
	i64u.Add(ctx, 3)
	f64u.Add(ctx, 4)
	i64h.Record(ctx, 5)
	f64h.Record(ctx, 6)
	i64g.Record(ctx, 7)
	f64g.Record(ctx, 8)
	fams := scrape(t, m)
	want := map[string]float64{
		"k_i64c_total": 1, "k_f64c_total": 2, "k_i64u": 3, "k_f64u": 4, "k_i64h": 1, "k_f64h": 1, "k_i64g": 7, "k_f64g": 8,
		"k_oi64c_total": 11, "k_oi64u": 12, "k_oi64g": 13, "k_of64c_total": 14, "k_of64u": 15, "k_of64g": 16, "k_reg": 17,
	}
	for name, w := range want {
		if v, ok := sample(fams, name, map[string]string{"otel_scope_name": scope}); !ok || v != w {
			t.Errorf("%s = %v (%v), want %v", name, v, ok, w)
		}
	}
	if err := reg.Unregister(); err != nil {
		t.Fatal(err)
	}
	if _, ok := sample(scrape(t, m), "k_reg", map[string]string{"otel_scope_name": scope}); ok {
		t.Error("an unregistered callback must stop observing")
	}
	// A foreign instrument is refused.
	if _, err := mt.RegisterCallback(func(context.Context, metric.Observer) error { return nil }, foreign{}); err == nil {
		t.Error("RegisterCallback with a foreign instrument must fail")
	}
}

var kindsRun int

type foreign struct{ metric.Int64ObservableGauge }
