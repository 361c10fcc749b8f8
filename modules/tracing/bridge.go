package tracing

import (
	"context"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
	"go.opentelemetry.io/otel/trace/noop"
)

// Why a bridge: otel.SetTracerProvider wires the global delegate only once
// per process, like the meter provider (otel-go#4291). A tracer taken from
// the global before that first call (an HTTP middleware built while the fx
// graph is, before any component opened) stays bound to whatever the first
// call installed, and restoring the previous provider does not rebind it.
// Installing each component's SDK provider directly would leave such
// tracers recording into the first app's provider, shut down, forever.
//
// So the global tracer provider is the package's bridge while a component
// is open: its tracers start spans on the current component's provider,
// rebinding when the current component changes, and start non-recording
// spans that carry the caller's span context on when none is open.

// bridge is the tracer provider installed as the global one.
type bridge struct {
	embedded.TracerProvider

	mu      sync.Mutex
	tracers map[tracerKey]*bridgeTracer
}

type tracerKey struct {
	name, version, schema string
	attrs                 attribute.Distinct
}

var (
	theBridge = &bridge{tracers: map[tracerKey]*bridgeTracer{}}
	noTracer  = noop.NewTracerProvider().Tracer("")
)

// Tracer returns the bridged tracer for name and opts, one per distinct
// scope, so per-call lookups (otel.Tracer(name).Start) allocate nothing.
func (b *bridge) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	c := trace.NewTracerConfig(opts...)
	attrs := c.InstrumentationAttributes()
	k := tracerKey{name: name, version: c.InstrumentationVersion(), schema: c.SchemaURL(), attrs: attrs.Equivalent()}
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.tracers[k]
	if !ok {
		t = &bridgeTracer{name: name, opts: opts}
		b.tracers[k] = t
	}
	return t
}

// bridgeTracer starts spans on the current component's provider.
type bridgeTracer struct {
	embedded.Tracer

	name  string
	opts  []trace.TracerOption
	bound atomic.Pointer[binding]
}

// binding is the tracer of one target; a tracer whose binding names
// another target than the current one rebinds.
type binding struct {
	target *target
	tracer trace.Tracer
}

// Start starts a span on the current component's provider, or a
// non-recording span carrying the caller's span context when none is
// open.
func (t *bridgeTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	cur := current.Load()
	if cur == nil {
		return noTracer.Start(ctx, name, opts...)
	}
	b := t.bound.Load()
	if b == nil || b.target != cur {
		b = &binding{target: cur, tracer: cur.tp.Tracer(t.name, t.opts...)}
		t.bound.Store(b)
	}
	return b.tracer.Start(ctx, name, opts...)
}
