package otelglobal

import (
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// Instruments are built once per global provider, and again when it
// changes, with the previous ones handed over.
func TestInstrumentsFollowTheGlobalProvider(t *testing.T) {
	prev := otel.GetMeterProvider()
	t.Cleanup(func() { otel.SetMeterProvider(prev) })
	type inst struct{ p metric.MeterProvider }
	var in Instruments[inst]
	builds := 0
	var handed *inst
	build := func(p metric.MeterProvider, old *inst) *inst {
		builds++
		handed = old
		return &inst{p: p}
	}
	if MetersInstalled() {
		t.Fatal("a provider is installed before the test installs one")
	}
	a := in.Get(build)
	if in.Get(build) != a || builds != 1 {
		t.Fatalf("%d builds for one provider", builds)
	}
	mp := sdkmetric.NewMeterProvider()
	otel.SetMeterProvider(mp)
	if !MetersInstalled() {
		t.Fatal("MetersInstalled is false with a provider installed")
	}
	b := in.Get(build)
	if b == a || b.p != metric.MeterProvider(mp) || handed != a || builds != 2 {
		t.Fatalf("after the provider changed: %+v, handed %v, %d builds", b, handed, builds)
	}
}

// uncomparable is a provider whose value == cannot compare.
type uncomparable struct {
	metric.MeterProvider
	_ []string
}

// A provider of an uncomparable type is used, not cached: comparing it
// would panic.
func TestInstrumentsTakeAnUncomparableProvider(t *testing.T) {
	prev := otel.GetMeterProvider()
	t.Cleanup(func() { otel.SetMeterProvider(prev) })
	otel.SetMeterProvider(uncomparable{MeterProvider: sdkmetric.NewMeterProvider()})
	var in Instruments[int]
	builds := 0
	for range 2 {
		in.Get(func(metric.MeterProvider, *int) *int { builds++; return new(int) })
	}
	if builds != 2 {
		t.Fatalf("%d builds, want one per use", builds)
	}
}
