package tracing

import (
	"slices"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// target is one open, active component's provider as the bridge sees it.
// Its identity is the binding generation.
type target struct {
	tp    *sdktrace.TracerProvider
	owner *Tracing
}

var (
	// current is the target spans start on; nil when no active component
	// is open.
	current atomic.Pointer[target]

	globalMu       sync.Mutex
	installed      []*target            // open active components, in open order
	base           trace.TracerProvider // the global provider before the first of them
	basePropagator propagation.TextMapPropagator

	// w3c is the propagator an active component installs: W3C trace
	// context (traceparent, tracestate) and W3C baggage.
	// A pointer, so it compares: the composite itself is a slice.
	w3c propagation.TextMapPropagator = &w3cPropagator{propagation.NewCompositeTextMapPropagator(
		propagation.TraceContext{}, propagation.Baggage{})}
)

type w3cPropagator struct{ propagation.TextMapPropagator }

// install makes t current, the bridge the global tracer provider and the
// W3C propagator the global one, and returns the provider and propagator
// it found.
func install(t *target) (trace.TracerProvider, propagation.TextMapPropagator) {
	globalMu.Lock()
	defer globalMu.Unlock()
	prev, prevTM := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	if len(installed) == 0 {
		if prev != trace.TracerProvider(theBridge) {
			base = prev
		}
		basePropagator = prevTM
	}
	installed = append(installed, t)
	current.Store(t)
	if prev != trace.TracerProvider(theBridge) {
		otel.SetTracerProvider(theBridge)
	}
	otel.SetTextMapPropagator(w3c)
	return prev, prevTM
}

// uninstall removes t. The latest still-open component becomes current;
// with none left the provider and propagator found by the first install
// are restored, unless someone replaced ours meanwhile (then theirs stay).
func uninstall(t *target) {
	globalMu.Lock()
	defer globalMu.Unlock()
	i := slices.Index(installed, t)
	if i < 0 {
		return
	}
	installed = slices.Delete(installed, i, i+1)
	if n := len(installed); n > 0 {
		current.Store(installed[n-1])
		return
	}
	current.Store(nil)
	if globalIsOurs() && base != nil {
		otel.SetTracerProvider(base)
	}
	if otel.GetTextMapPropagator() == w3c && basePropagator != nil {
		otel.SetTextMapPropagator(basePropagator)
	}
	base, basePropagator = nil, nil
}

func globalIsOurs() bool { return otel.GetTracerProvider() == trace.TracerProvider(theBridge) }

// Current returns the active component installed last and still open, or
// nil.
func Current() *Tracing {
	if t := current.Load(); t != nil {
		return t.owner
	}
	return nil
}

// GlobalProvider returns the SDK provider the global tracer provider
// forwards to: that of the component installed last and still open, or
// nil. The process-global otel.GetTracerProvider() is a forwarding bridge
// while any component is open.
func GlobalProvider() *sdktrace.TracerProvider {
	if t := current.Load(); t != nil {
		return t.tp
	}
	return nil
}

// OwnsGlobalState reports whether this component currently supplies the
// process-global tracer provider: it is open, active, installed, and no
// later component took over.
func (t *Tracing) OwnsGlobalState() bool {
	t.mu.Lock()
	slot := t.slot
	t.mu.Unlock()
	return slot != nil && current.Load() == slot && globalIsOurs()
}
