package fxsvc

import (
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/modules/tracing"
)

// Tracing adds the tracing component to the app: built by tracing.New from
// opts over the environment (SVC_TRACING_*, the OTEL_* fallbacks), opened
// when the app starts (its provider becomes the process-global tracer
// provider and the W3C propagator the global one) and closed when it stops
// (flush bounded by SVC_TRACING_SHUTDOWN_TIMEOUT, the previous provider
// and propagator restored). It provides *tracing.Tracing to the graph and
// logs to the graph's *zap.Logger, or to [DefaultLogger] when the app has
// none (a tracing.WithLogger in opts wins). Add it before Serve, so
// that it opens before the server accepts and flushes after the drain.
//
// The exporters are linked by import: a binary that lets the environment
// choose otlp-http imports github.com/svckit/svc/modules/tracing/otlphttp
// for its side effect, and so on for otlpgrpc and console.
//
// It refuses: a second Tracing in one app (fx.New fails: fx refuses the
// second provider of *tracing.Tracing, named onlyOneTracingPerApp; any
// other component claiming the tracing kind gets an error naming both
// registrations), an invalid setting and an exporter not
// linked into the binary (fx.New fails with a *tracing.ConfigError naming
// the variable or option, and the import to add). An inactive component
// (exporter auto with no endpoint, or none) is registered and installs
// nothing, so Tracing() may be added unconditionally.
func Tracing(opts ...tracing.Option) fx.Option {
	return withKit(tracingSignal(opts).module("svc.tracing", tracingOptions(opts)))
}

type tracingOptions []tracing.Option

type tracingParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Options   tracingOptions
	Log       logIn
}

// onlyOneTracingPerApp builds and registers the component. Its name is
// what fx reports when an app adds Tracing twice.
func onlyOneTracingPerApp(p tracingParams) (*tracing.Tracing, error) {
	return tracingSignal(nil).buildIn(p.Lifecycle, p.Log, p.Options)
}

// encodeTracing is the component's part of the start line. An inactive
// tracer flushes nothing on stop: it shows no shutdown timeout, rather
// than a 0s beside the documented 1 s.
func encodeTracing(t *tracing.Tracing, enc zapcore.ObjectEncoder) {
	encodeSignal(t, enc)
	if t.Exporter() != "none" {
		enc.AddDuration("shutdown_timeout", t.ShutdownTimeout())
	}
}

// tracingSignal is fxsvc.Tracing's part of what the two signals share.
func tracingSignal(opts []tracing.Option) otelSignal[*tracing.Tracing, tracing.Option] {
	return otelSignal[*tracing.Tracing, tracing.Option]{kind: "tracing", option: "fxsvc.Tracing",
		prefix: "SVC_TRACING_", config: &tracing.Config{}, build: onlyOneTracingPerApp, encode: encodeTracing,
		newC: tracing.New, withLogger: tracing.WithLogger, opts: opts,
		flush: func(p *stopParts) *time.Duration { return &p.traceFlush }}
}
