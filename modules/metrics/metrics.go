package metrics

import (
	"io"
	"os"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/modules/metrics/internal/registry"
)

// Kind is the lifecycle kind of the component; one per app.
const Kind = "metrics"

// DefaultName is the name of a component built without WithName.
const DefaultName = "default"

type state int

const (
	stateNew state = iota
	stateOpen
	stateClosed
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
	name     string
	cfg      Config
	log      *zap.Logger
	console  io.Writer
	factory  registry.Factory
	expState any // the exporter's per-component state (registry.Factory.Prepare)

	mu       sync.Mutex
	state    state
	provider *sdkmetric.MeterProvider
	slot     *target
	previous metric.MeterProvider
	meters   map[string]metric.Meter

	otelErrors errorLimiter // OpenTelemetry's errors, one line per kind a minute
}

// New builds a component from options over the environment: SVC_METRICS_*
// (unless WithEnvLoad(false), or SVC_ENV_LOAD=false without that option),
// then the options, then the OTEL_* fallbacks for fields still empty, then
// the defaults. An invalid value fails here with a *ConfigError naming the
// variable or option to fix. New opens nothing: the exporter is built by
// Open.
func New(opts ...Option) (*Metrics, error) {
	b := newBuilder(opts)
	load := true
	if b.envLoad != nil {
		load = *b.envLoad
	} else {
		var err error
		if load, err = envLoadDefault(); err != nil {
			return nil, err
		}
	}
	var cfg Config
	src := sources{}
	if load {
		if err := readSVC(&cfg, src); err != nil {
			return nil, err
		}
	}
	overlay(&cfg, b.cfg, b.src, src)
	if err := applyOTELFallbacks(&cfg, src); err != nil {
		return nil, err
	}
	return build(b, cfg, src)
}

// FromConfig builds a component from cfg as given: no environment variable
// is read (not SVC_METRICS_*, not OTEL_*), zero fields take the defaults.
// Options may set the name, logger and console writer, and override cfg's
// fields. Invalid values fail with a *ConfigError naming the Config field.
func FromConfig(cfg Config, opts ...Option) (*Metrics, error) {
	b := newBuilder(opts)
	src := sources{}
	overlay(&cfg, b.cfg, b.src, src)
	return build(b, cfg, src)
}

func newBuilder(opts []Option) *builder {
	b := &builder{src: sources{}, name: DefaultName}
	for _, o := range opts {
		if o != nil {
			o(b)
		}
	}
	return b
}

// overlay copies the fields the options set onto cfg and notes their
// source.
func overlay(cfg *Config, from Config, set, src sources) {
	for spec, name := range set {
		switch spec {
		case "service_name":
			cfg.ServiceName = from.ServiceName
		case "exporter":
			cfg.Exporter = from.Exporter
		case "endpoint":
			cfg.Endpoint = from.Endpoint
		case "headers":
			cfg.Headers = from.Headers
		case "basic_auth_username":
			cfg.BasicAuthUsername = from.BasicAuthUsername
		case "basic_auth_password":
			cfg.BasicAuthPassword = from.BasicAuthPassword
		case "export_interval":
			cfg.ExportInterval = from.ExportInterval
		case "export_timeout":
			cfg.ExportTimeout = from.ExportTimeout
		case "resource_attributes":
			cfg.ResourceAttributes = from.ResourceAttributes
		case "shutdown_timeout":
			cfg.ShutdownTimeout = from.ShutdownTimeout
		}
		src[spec] = name
	}
}

func build(b *builder, cfg Config, src sources) (*Metrics, error) {
	if cfg.Exporter == "" && b.defExp != "" {
		cfg.Exporter, src["exporter"] = b.defExp, "metrics.WithDefaultExporter"
	}
	if b.name == "" {
		return nil, &ConfigError{Setting: "metrics.WithName", Field: "name", Reason: "the component name is empty"}
	}
	asked := cfg.Exporter
	cfg, err := resolve(cfg, src)
	if err != nil {
		return nil, err
	}
	factory, err := linkedFactory(cfg, asked, src)
	if err != nil {
		return nil, err
	}
	cfg = cfg.clone() // the caller's maps stay the caller's
	m := &Metrics{name: b.name, cfg: cfg, log: b.log, console: b.console, factory: factory, meters: map[string]metric.Meter{}}
	if m.log == nil {
		m.log = defaultLogger()
	}
	m.log = m.log.Named("svc.metrics").With(zap.String("component", m.name))
	if m.console == nil {
		m.console = os.Stdout
	}
	if factory.Prepare != nil {
		m.expState = factory.Prepare()
	}
	return m, nil
}

// defaultLogger writes warnings and errors as JSON to standard error, so an
// abandoned flush is never silent when no logger was given.
func defaultLogger() *zap.Logger {
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	return zap.New(zapcore.NewCore(enc, zapcore.Lock(os.Stderr), zap.WarnLevel))
}

// Name returns the component name ("default" unless WithName).
func (m *Metrics) Name() string { return m.name }

// Exporter returns the resolved exporter: never auto; none when the
// component auto-disabled. It is known from construction on.
func (m *Metrics) Exporter() Exporter { return m.cfg.Exporter }

// ShutdownTimeout returns the bound on the flush when the component closes
// (shutdown_timeout, SVC_METRICS_SHUTDOWN_TIMEOUT), known from construction
// on; 0 when the component auto-disabled and so flushes nothing. The stop
// budget of fxsvc.Run is checked against it.
func (m *Metrics) ShutdownTimeout() time.Duration {
	if m.cfg.Exporter == ExporterNone {
		return 0
	}
	return m.cfg.ShutdownTimeout
}

// Config returns the resolved configuration (defaults filled, auto
// resolved). Before Open it returns ErrNotStarted.
func (m *Metrics) Config() (Config, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state == stateNew {
		return Config{}, ErrNotStarted
	}
	return m.cfg.clone(), nil
}

// Provider returns the SDK meter provider. It returns ErrNotStarted before
// Open and ErrInactive when the exporter resolved to none. After Close it
// returns the provider, shut down.
func (m *Metrics) Provider() (*sdkmetric.MeterProvider, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.state == stateNew:
		return nil, ErrNotStarted
	case m.provider == nil:
		return nil, ErrInactive
	}
	return m.provider, nil
}

// Active reports whether the component is open with a provider, that is
// open and not auto-disabled.
func (m *Metrics) Active() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state == stateOpen && m.provider != nil
}

// OwnsGlobalState reports whether this component currently supplies the
// process-global meter provider: it is open, active, installed, and no
// later component took over.
func (m *Metrics) OwnsGlobalState() bool {
	m.mu.Lock()
	slot := m.slot
	m.mu.Unlock()
	return slot != nil && current.Load() == slot && globalIsOurs()
}
