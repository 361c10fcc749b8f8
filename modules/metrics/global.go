package metrics

import (
	"slices"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
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

	globalMu  sync.Mutex
	installed []*target            // open active components, in open order
	base      metric.MeterProvider // the global provider before the first of them
	theBridge = newBridge()
)

// install makes t current and the bridge the global provider, and returns
// the global provider it found.
func install(t *target) metric.MeterProvider {
	globalMu.Lock()
	defer globalMu.Unlock()
	prev := otel.GetMeterProvider()
	if len(installed) == 0 && prev != metric.MeterProvider(theBridge) {
		base = prev
	}
	addOTelLogging(t.owner)
	installed = append(installed, t)
	theBridge.switchTo(t)
	if prev != metric.MeterProvider(theBridge) {
		otel.SetMeterProvider(theBridge)
	}
	return prev
}

// uninstall removes t. The latest still-open component becomes current;
// with none left the provider found by the first install is restored, unless
// someone replaced the bridge meanwhile (then their provider stays) or the
// first install found the bridge itself (then it stays, idle).
func uninstall(t *target) {
	globalMu.Lock()
	defer globalMu.Unlock()
	i := slices.Index(installed, t)
	if i < 0 {
		return
	}
	installed = slices.Delete(installed, i, i+1)
	if n := len(installed); n > 0 {
		theBridge.switchTo(installed[n-1])
		return
	}
	theBridge.switchTo(nil)
	// base is nil when the first install found the bridge already global
	// (someone saved it while an earlier component was open and put it
	// back): the idle bridge, a no-op, stays rather than a nil provider.
	if globalIsOurs() && base != nil {
		otel.SetMeterProvider(base)
	}
	base = nil
}

func globalIsOurs() bool { return otel.GetMeterProvider() == metric.MeterProvider(theBridge) }

// Current returns the active component installed last and still open, or
// nil. Handler(nil) serves it: with no component named, the running
// app's metrics.
func Current() *Metrics {
	if t := current.Load(); t != nil {
		return t.owner
	}
	return nil
}

// GlobalProvider returns the provider the bridge forwards to: the meter
// provider of the component installed last and still open, or nil. The
// process-global otel.GetMeterProvider() is the bridge itself while any
// component is open.
func GlobalProvider() metric.MeterProvider {
	if t := current.Load(); t != nil {
		return t.mp
	}
	return nil
}
