package tracing

import (
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/svckit/svc/internal/otelcore"
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

	// base and basePropagator are the global provider and propagator
	// before the first component opened; guarded by installer.Mu.
	base           trace.TracerProvider
	basePropagator propagation.TextMapPropagator

	// w3c is the propagator an active component installs: W3C trace
	// context (traceparent, tracestate) and W3C baggage.
	// A pointer, so it compares: the composite itself is a slice.
	w3c propagation.TextMapPropagator = &w3cPropagator{propagation.NewCompositeTextMapPropagator(
		propagation.TraceContext{}, propagation.Baggage{})}

	installer = otelcore.Installer[*target]{
		Save: func() {
			if prev := otel.GetTracerProvider(); prev != trace.TracerProvider(theBridge) {
				base = prev
			}
			basePropagator = otel.GetTextMapPropagator()
		},
		Switch: func(t *target) { current.Store(t) },
		// Unless someone replaced ours meanwhile (then theirs stay).
		Restore: func() {
			if globalIsOurs() && base != nil {
				otel.SetTracerProvider(base)
			}
			if otel.GetTextMapPropagator() == w3c && basePropagator != nil {
				otel.SetTextMapPropagator(basePropagator)
			}
			base, basePropagator = nil, nil
		},
	}
)

type w3cPropagator struct{ propagation.TextMapPropagator }

// install makes t's provider current, the bridge the global tracer
// provider and the W3C propagator the global one.
func (t *Tracing) install(p otelcore.Provider) {
	t.slot = &target{tp: p.(*sdktrace.TracerProvider), owner: t}
	installer.Install(t.slot, func() {
		if !globalIsOurs() {
			otel.SetTracerProvider(theBridge)
		}
		otel.SetTextMapPropagator(w3c)
	})
}

// uninstall removes t's provider: the latest still-open component becomes
// current, and with none left the provider and propagator found by the
// first install are restored.
func (t *Tracing) uninstall() {
	installer.Uninstall(t.slot)
	t.slot = nil
	t.closing.Store(true)
}

func globalIsOurs() bool { return otel.GetTracerProvider() == trace.TracerProvider(theBridge) }
