package metrics

import (
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/svckit/svc/internal/otelcore"
)

// Why a bridge: otel.SetMeterProvider wires the global delegate only once
// per process (otel-go#4291, #5827). Instruments taken from the global
// before that first call stay bound to whatever it installed, and restoring
// the previous provider does not rebind them. Had we installed each
// component's SDK provider directly, every instrument a library made from
// the global before the first app started (or between two apps) would keep
// recording into the first app's provider, shut down, forever.
//
// So the global provider is always the package's bridge while a component
// is open. The bridge forwards every instrument to the current component's
// provider, rebinds when the current component changes, and turns into a
// no-op when none is open. The first SetMeterProvider of the process then
// hands the bridge the early instruments, and they follow every later app.

// target is one open, active component's provider as the bridge sees it.
// Its identity is the binding generation: instruments bound to an older
// target rebind on next use.
type target struct {
	mp    metric.MeterProvider
	owner *Metrics
}

var (
	// current is the target instruments record into; nil when no active
	// component is open (then everything is a no-op).
	current atomic.Pointer[target]

	// base is the global provider before the first component opened;
	// guarded by installer.Mu.
	base      metric.MeterProvider
	theBridge = newBridge()

	installer = otelcore.Installer[*target]{
		Save: func() {
			if prev := otel.GetMeterProvider(); prev != metric.MeterProvider(theBridge) {
				base = prev
			}
		},
		Switch: func(t *target) { theBridge.switchTo(t) },
		// Unless someone replaced the bridge meanwhile (then their provider
		// stays). base is nil when the first install found the bridge
		// already global (someone saved it while an earlier component was
		// open and put it back): the idle bridge, a no-op, stays rather
		// than a nil provider.
		Restore: func() {
			if globalIsOurs() && base != nil {
				otel.SetMeterProvider(base)
			}
			base = nil
		},
	}
)

// install makes m's provider current and the bridge the global provider.
func (m *Metrics) install(p otelcore.Provider) {
	m.slot = &target{mp: p.(*sdkmetric.MeterProvider), owner: m}
	installer.Install(m.slot, func() {
		addOTelLogging(m)
		if !globalIsOurs() {
			otel.SetMeterProvider(theBridge)
		}
	})
}

// uninstall removes m's provider: the latest still-open component becomes
// current, and with none left the provider found by the first install is
// restored.
func (m *Metrics) uninstall() {
	installer.Uninstall(m.slot)
	m.slot = nil
}

func globalIsOurs() bool { return otel.GetMeterProvider() == metric.MeterProvider(theBridge) }

// currentComponent returns the active component installed last and still
// open, or nil. Handler(nil) serves it: with no component named, the
// running app's metrics.
func currentComponent() *Metrics {
	if t := current.Load(); t != nil {
		return t.owner
	}
	return nil
}

// ExporterState is what the exporter linked by import prepared for m (its
// Factory's Prepare), nil for none or a nil m. The exporter's own package
// reads it (prometheus.Registry: the component's registry); the value is
// of that package's type, which this package cannot name, hence any. An
// app never needs it.
func (m *Metrics) ExporterState() any {
	if m == nil {
		return nil
	}
	return m.expState
}
