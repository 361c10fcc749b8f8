package tracing

import (
	"io"
	"maps"
	"time"

	"go.uber.org/zap"

	"github.com/svckit/svc/secret"
)

// Option configures New and FromConfig. Options that set a Config field
// win over the environment; the OTEL_* fallbacks apply only to fields that
// neither an option nor SVC_TRACING_* set.
type Option func(*builder)

type builder struct {
	cfg     Config
	src     sources
	name    string
	envLoad *bool
	log     *zap.Logger
	console io.Writer
}

func (b *builder) set(spec string) { b.src[spec] = fields.BySpec(spec).Option }

// WithName names the component (default "default"); it shows in errors,
// logs and the lifecycle name "tracing/<name>".
func WithName(name string) Option { return func(b *builder) { b.name = name } }

// WithServiceName sets service_name.
func WithServiceName(name string) Option {
	return func(b *builder) { b.cfg.ServiceName = name; b.set("service_name") }
}

// WithExporter sets the exporter (case-insensitive; see Exporter). An
// exporter other than auto and none needs its leaf package imported.
func WithExporter(e Exporter) Option {
	return func(b *builder) { b.cfg.Exporter = e; b.set("exporter") }
}

// WithEndpoint sets the OTLP endpoint URL; it is held as a secret.URL.
func WithEndpoint(url string) Option {
	return func(b *builder) { b.cfg.Endpoint = secret.URL(url); b.set("endpoint") }
}

// WithHeaders sets the headers sent on every OTLP export (replacing any
// set before); values are held as secrets.
func WithHeaders(h map[string]string) Option {
	return func(b *builder) {
		b.cfg.Headers = make(Headers, len(h))
		for k, v := range h {
			b.cfg.Headers[k] = secret.String(v)
		}
		b.set("headers")
	}
}

// WithBasicAuth sets the Basic credentials sent to the OTLP collector as
// "Authorization: Basic base64(username:password)".
func WithBasicAuth(username, password string) Option {
	return func(b *builder) {
		b.cfg.BasicAuthUsername, b.cfg.BasicAuthPassword = username, secret.String(password)
		b.set("basic_auth_username")
		b.set("basic_auth_password")
	}
}

// WithSampler sets the sampler (case-insensitive; see Sampler).
func WithSampler(s Sampler) Option {
	return func(b *builder) { b.cfg.Sampler = s; b.set("sampler") }
}

// WithSamplerRatio sets the share of traces the traceidratio samplers
// keep; it must be in [0, 1], and is refused beside a sampler that takes
// no ratio.
func WithSamplerRatio(r float64) Option {
	return func(b *builder) { b.cfg.SamplerRatio = &r; b.set("sampler_ratio") }
}

// WithExportTimeout bounds one export; it must be positive.
func WithExportTimeout(d time.Duration) Option {
	return func(b *builder) { b.cfg.ExportTimeout = d; b.set("export_timeout") }
}

// WithResourceAttributes sets extra resource attributes (replacing any set
// before).
func WithResourceAttributes(attrs map[string]string) Option {
	return func(b *builder) { b.cfg.ResourceAttributes = maps.Clone(attrs); b.set("resource_attributes") }
}

// WithShutdownTimeout bounds the flush on stop; it must be positive.
func WithShutdownTimeout(d time.Duration) Option {
	return func(b *builder) { b.cfg.ShutdownTimeout = d; b.set("shutdown_timeout") }
}

// WithEnvLoad says whether New reads SVC_TRACING_* variables. Without this
// option SVC_ENV_LOAD decides (unset means yes). The OTEL_* fallbacks are
// OpenTelemetry's own variables and apply either way; FromConfig reads no
// environment at all.
func WithEnvLoad(load bool) Option { return func(b *builder) { b.envLoad = &load } }

// WithLogger sets the logger for the component's warnings (an abandoned
// flush). The default writes warnings as JSON to standard error.
func WithLogger(l *zap.Logger) Option { return func(b *builder) { b.log = l } }

// WithConsoleWriter sets where the console exporter writes (default
// standard output).
func WithConsoleWriter(w io.Writer) Option { return func(b *builder) { b.console = w } }
