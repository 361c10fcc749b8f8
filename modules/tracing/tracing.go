package tracing

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Kind is the lifecycle kind of the component; one per app.
const Kind = "tracing"

// DefaultName is the name of a component built without WithName.
const DefaultName = "default"

type state int

const (
	stateNew state = iota
	stateOpen
	stateClosed
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
	name    string
	cfg     Config
	log     *zap.Logger
	console io.Writer

	mu         sync.Mutex
	state      state
	provider   *sdktrace.TracerProvider
	slot       *target
	previous   trace.TracerProvider
	previousTM propagation.TextMapPropagator
	closing    atomic.Bool // set by Close before the final flush
}

// New builds a component from options over the environment: SVC_TRACING_*
// (unless WithEnvLoad(false), or SVC_ENV_LOAD=false without that option),
// then the options, then the OTEL_* fallbacks for fields still empty, then
// the defaults. An invalid value, or an exporter whose leaf package the
// binary does not import, fails here with a *ConfigError naming the
// variable or option to fix. New opens nothing: the exporter is built by
// Open.
func New(opts ...Option) (*Tracing, error) {
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
// is read (not SVC_TRACING_*, not OTEL_*), zero fields take the defaults.
// Options may set the name, logger and console writer, and override cfg's
// fields. Invalid values fail with a *ConfigError naming the Config field.
func FromConfig(cfg Config, opts ...Option) (*Tracing, error) {
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
		case "sampler":
			cfg.Sampler = from.Sampler
		case "sampler_ratio":
			cfg.SamplerRatio = from.SamplerRatio
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

func build(b *builder, cfg Config, src sources) (*Tracing, error) {
	if b.name == "" {
		return nil, &ConfigError{Setting: "tracing.WithName", Field: "name", Reason: "the component name is empty"}
	}
	cfg, err := resolve(cfg.clone(), src)
	if err != nil {
		return nil, err
	}
	t := &Tracing{name: b.name, cfg: cfg, log: b.log, console: b.console}
	if t.log == nil {
		t.log = defaultLogger()
	}
	t.log = t.log.Named("svc.tracing").With(zap.String("component", t.name))
	if t.console == nil {
		t.console = os.Stdout
	}
	return t, nil
}

// defaultLogger writes warnings and errors as JSON to standard error, so an
// abandoned flush is never silent when no logger was given.
func defaultLogger() *zap.Logger {
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	return zap.New(zapcore.NewCore(enc, zapcore.Lock(os.Stderr), zap.WarnLevel))
}

// Name returns the component name ("default" unless WithName).
func (t *Tracing) Name() string { return t.name }

// Exporter returns the resolved exporter: never auto; none when the
// component auto-disabled. It is known from construction on.
func (t *Tracing) Exporter() Exporter { return t.cfg.Exporter }

// ShutdownTimeout returns the bound on the flush when the component closes
// (SVC_TRACING_SHUTDOWN_TIMEOUT), known from construction on; 0 when the
// component is inactive and so flushes nothing. The stop budget of
// fxsvc.Run is checked against it.
func (t *Tracing) ShutdownTimeout() time.Duration {
	if t.cfg.Exporter == ExporterNone {
		return 0
	}
	return t.cfg.ShutdownTimeout
}

// Config returns the resolved configuration (defaults filled, auto
// resolved). Before Open it returns ErrNotStarted.
func (t *Tracing) Config() (Config, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state == stateNew {
		return Config{}, ErrNotStarted
	}
	return t.cfg.clone(), nil
}

// Provider returns the SDK tracer provider. It returns ErrNotStarted
// before Open and ErrInactive when the exporter resolved to none. After
// Close it returns the provider, shut down.
func (t *Tracing) Provider() (*sdktrace.TracerProvider, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.state == stateNew:
		return nil, ErrNotStarted
	case t.provider == nil:
		return nil, ErrInactive
	}
	return t.provider, nil
}

// Active reports whether the component is open with a provider, that is
// open and not auto-disabled.
func (t *Tracing) Active() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state == stateOpen && t.provider != nil
}
