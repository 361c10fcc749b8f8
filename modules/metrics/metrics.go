package metrics

import (
	"time"

	"context"

	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/modules/metrics/internal/registry"
)

// Metrics is the metrics component: it owns an OpenTelemetry meter
// provider for the life of the app, installs it as the process-global
// meter provider while open, and hands out meters and instruments. It is
// safe for concurrent use.
//
// Build it with New (environment and options) or FromConfig (a Config,
// no environment), then Open and Close it, or let fxsvc.Metrics do both on
// the fx lifecycle.
type Metrics struct {
	c        *otelcore.Component // c.Mu guards slot and meters too
	cfg      Config
	factory  registry.Factory
	expState any // the exporter's per-component state (registry.Factory.Prepare)

	slot   *target
	meters map[string]metric.Meter

	otelErrors errorLimiter // OpenTelemetry's errors, one line per kind a minute
}

// New builds a component from options over the environment: SVC_METRICS_*
// (unless SVC_ENV_LOAD=false),
// then the options, then the OTEL_* fallbacks for fields still empty, then
// the defaults. An invalid value, or an exporter whose package the binary
// does not import, fails here with a *ConfigError naming the variable or
// option to fix. New opens nothing: the exporter is built by Open.
func New(opts ...Option) (*Metrics, error) {
	return otelcore.Build(sig, Config{}, true, opts, checkInterval, newMetrics)
}

// FromConfig builds a component from cfg as given: no environment variable
// is read (not SVC_METRICS_*, not OTEL_*), zero fields take the defaults.
// Options may set the name, logger and console writer, and override cfg's
// fields. Invalid values fail with a *ConfigError naming the Config field.
func FromConfig(cfg Config, opts ...Option) (*Metrics, error) {
	return otelcore.Build(sig, cfg, false, opts, checkInterval, newMetrics)
}

// Open builds the exporter and provider and installs it process-wide: the
// global meter provider (otel.GetMeterProvider) forwards to it and the
// measure wrappers record into it. The provider found there before is
// remembered and restored by Close. An auto-disabled component (exporter
// none) installs nothing and stays inactive. Open refuses a second call.
func (m *Metrics) Open(ctx context.Context) error { return m.c.Open(ctx, m.newProvider, m.install) }

// Close uninstalls the provider, restores the global meter provider Open
// found, and shuts the provider down, flushing pending metrics within
// shutdown_timeout (or ctx's deadline, if sooner). A flush that runs out is
// abandoned, and one the exporter fails (a collector refusing, or
// unreachable) is given up: either way a warning is logged (secrets
// redacted), pending metrics may be lost, and Close returns nil, so the
// app's stop proceeds and a clean exit stays clean. Close on a component
// never opened, or closed, does nothing. OpenTelemetry's errors come to
// this component until its provider is shut down: the final export's are
// its own.
func (m *Metrics) Close(ctx context.Context) error {
	return m.c.Close(ctx, m.uninstall, func() { removeOTelLogging(m) })
}

// newMetrics builds the component around its shared half: the linked
// exporter's factory (build checked it is) and the state it prepares.
func newMetrics(c *otelcore.Component, cfg Config) *Metrics {
	factory, _ := registry.Readers.Lookup(cfg.Exporter)
	m := &Metrics{c: c, cfg: cfg.clone(), factory: factory, meters: map[string]metric.Meter{}}
	if factory.Prepare != nil {
		m.expState = factory.Prepare()
	}
	return m
}

// Name returns the component name ("default" unless WithName).
func (m *Metrics) Name() string { return m.c.Name }

// Config returns the resolved configuration (defaults filled, auto
// resolved). Before Open it returns ErrNotStarted.
func (m *Metrics) Config() (Config, error) {
	m.c.Mu.Lock()
	defer m.c.Mu.Unlock()
	if !m.c.Started() {
		return Config{}, ErrNotStarted
	}
	return m.cfg.clone(), nil
}

// Provider returns the SDK meter provider. It returns ErrNotStarted before
// Open and ErrInactive when the exporter resolved to none. After Close it
// returns the provider, shut down.
func (m *Metrics) Provider() (*sdkmetric.MeterProvider, error) {
	p, err := m.c.Provider()
	if err != nil {
		return nil, err
	}
	return p.(*sdkmetric.MeterProvider), nil
}

// Active reports whether the component is open with a provider, that is
// open and not auto-disabled.
func (m *Metrics) Active() bool { return m.c.Active() }

// Exporter is the exporter in force, resolved: never "auto" ("none" when
// auto found no endpoint). fxsvc names it on the start line.
func (m *Metrics) Exporter() string { return m.c.Exporter }

// ShutdownTimeout bounds the final flush on Close; 0 when the exporter is
// none and nothing is flushed. fxsvc counts it in the app's stop budget.
func (m *Metrics) ShutdownTimeout() time.Duration { return m.c.ShutdownTimeout() }
