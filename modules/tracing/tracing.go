package tracing

import (
	"time"

	"context"
	"sync/atomic"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/svckit/svc/internal/otelcore"
)

// Tracing is the tracing component: it owns an OpenTelemetry tracer
// provider for the life of the app and, while open, makes it the
// process-global tracer provider with the W3C trace-context and baggage
// propagator. It is safe for concurrent use.
//
// Build it with New (environment and options) or FromConfig (a Config, no
// environment), then Open and Close it, or let fxsvc.Tracing do both on
// the fx lifecycle.
type Tracing struct {
	c       *otelcore.Component // c.Mu guards slot too
	cfg     Config
	slot    *target
	closing atomic.Bool // set by Close before the final flush
}

// New builds a component from options over the environment: SVC_TRACING_*
// (unless SVC_ENV_LOAD=false),
// then the options, then the OTEL_* fallbacks for fields still empty, then
// the defaults. An invalid value, or an exporter whose leaf package the
// binary does not import, fails here with a *ConfigError naming the
// variable or option to fix. New opens nothing: the exporter is built by
// Open.
func New(opts ...Option) (*Tracing, error) {
	return otelcore.Build(sig, Config{}, true, opts, checkSampler, newTracing)
}

// FromConfig builds a component from cfg as given: no environment variable
// is read (not SVC_TRACING_*, not OTEL_*), zero fields take the defaults.
// Options may set the name, logger and console writer, and override cfg's
// fields. Invalid values fail with a *ConfigError naming the Config field.
func FromConfig(cfg Config, opts ...Option) (*Tracing, error) {
	return otelcore.Build(sig, cfg, false, opts, checkSampler, newTracing)
}

// Open builds the exporter and provider and installs them process-wide:
// the global tracer provider (otel.GetTracerProvider) starts spans on this
// component's provider, and the global propagator
// (otel.GetTextMapPropagator) reads and writes W3C traceparent, tracestate
// and baggage. The provider and propagator found there before are
// remembered and restored by Close. An inactive component (exporter none,
// or auto without an endpoint) installs nothing, so tracing costs nothing.
// Open refuses a second call.
func (t *Tracing) Open(ctx context.Context) error { return t.c.Open(ctx, t.newProvider, t.install) }

// Close uninstalls the provider, restores the global tracer provider and
// propagator Open found, and shuts the provider down, flushing pending
// spans within shutdown_timeout (or ctx's deadline, if sooner). A flush
// that runs out is abandoned, and one the exporter fails (a collector
// refusing, or unreachable) is given up: either way a warning is logged
// (secrets redacted), pending spans may be lost, and Close returns nil, so
// the app's stop proceeds and a clean exit stays clean. Spans already
// started when Close begins still end into the provider and are flushed.
// Close on a component never opened, or closed, does nothing.
func (t *Tracing) Close(ctx context.Context) error { return t.c.Close(ctx, t.uninstall, nil) }

// newTracing builds the component around its shared half.
func newTracing(c *otelcore.Component, cfg Config) *Tracing { return &Tracing{c: c, cfg: cfg.clone()} }

// Name returns the component name ("default" unless WithName).
func (t *Tracing) Name() string { return t.c.Name }

// Active reports whether t installs a tracer provider (its exporter is
// not none). fxsvc shows it on the start line.
func (t *Tracing) Active() bool { return t.c.Active() }

// Exporter is the exporter in force, resolved: never "auto" ("none" when
// auto found no endpoint). fxsvc names it on the start line.
func (t *Tracing) Exporter() string { return t.c.Exporter }

// ShutdownTimeout bounds the final flush on Close; 0 when the exporter is
// none and nothing is flushed. fxsvc counts it in the app's stop budget.
func (t *Tracing) ShutdownTimeout() time.Duration { return t.c.ShutdownTimeout() }

// Provider returns the SDK tracer provider. It returns ErrNotStarted
// before Open and ErrInactive when the exporter resolved to none. After
// Close it returns the provider, shut down.
func (t *Tracing) Provider() (*sdktrace.TracerProvider, error) {
	p, err := t.c.Provider()
	if err != nil {
		return nil, err
	}
	return p.(*sdktrace.TracerProvider), nil
}
