package tracing

import (
	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/modules/tracing/internal/registry"
)

// Config is the tracing component's configuration. The env tags name the
// variables read under SVC_TRACING_ (SVC_TRACING_EXPORTER,
// SVC_TRACING_SAMPLER, ...). Zero fields mean "unset": New fills them from
// the environment fallbacks and the defaults (docs/tracing.md's table:
// sampler parentbased_always_on, export timeout 10 s, shutdown timeout
// 1 s).
//
// Printing a Config (fmt, JSON, zap, slog) shows Endpoint with its
// credentials masked, and Headers values and BasicAuthPassword as ***.
type Config struct {
	// Exporter is where spans go, as SVC_TRACING_EXPORTER spells it, read
	// case-insensitively:
	//
	//   - "auto" (the default, also "") resolves to "otlp-http" when an endpoint is
	//     configured, else to "none".
	//   - "otlp-http" sends OTLP over HTTP (protobuf); link it with
	//     import _ "github.com/svckit/svc/modules/tracing/otlphttp".
	//   - "otlp-grpc" sends OTLP over gRPC; link it with
	//     import _ "github.com/svckit/svc/modules/tracing/otlpgrpc".
	//   - "console" writes spans as JSON (to standard output unless
	//     WithConsoleWriter says otherwise); link it with
	//     import _ "github.com/svckit/svc/modules/tracing/console".
	//   - "none" disables the component: nothing is installed.
	//
	// Any other value is refused with a *ConfigError.
	Exporter string `env:"EXPORTER" json:"exporter,omitempty"`
	// Export holds the settings metrics has too: service name, endpoint,
	// headers, Basic credentials, export and shutdown timeouts, resource
	// attributes. Its fields read as Config's own (cfg.Endpoint).
	Export
	// Sampler decides which traces are recorded, with OpenTelemetry's
	// OTEL_TRACES_SAMPLER values, read case-insensitively (it falls back
	// to OTEL_TRACES_SAMPLER):
	//
	//   - "always_on" records every trace, ignoring the caller's decision.
	//   - "always_off" records nothing.
	//   - "traceidratio" records the SamplerRatio share of traces, by trace
	//     ID, ignoring the caller's decision.
	//   - "parentbased_always_on" (the default, also "") follows the
	//     caller's sampled flag and records every trace that starts here.
	//   - "parentbased_always_off" follows the caller's sampled flag and
	//     records no trace that starts here.
	//   - "parentbased_traceidratio" follows the caller's sampled flag and
	//     records the SamplerRatio share of the traces that start here.
	Sampler string `env:"SAMPLER" json:"sampler,omitempty"`
	// SamplerRatio is the share of traces the traceidratio samplers keep,
	// in [0, 1]; nil means 1. Falls back to OTEL_TRACES_SAMPLER_ARG when
	// the sampler takes a ratio (and is ignored there otherwise, as
	// OpenTelemetry does); set here with another sampler it is refused.
	SamplerRatio *float64 `env:"SAMPLER_RATIO" json:"sampler_ratio,omitempty"`
}

// Export is the part of Config that the metrics component's Config has
// too; see its fields.
type Export = otelcore.Export

// ConfigError says which setting holds an invalid value: an environment
// variable (SVC_TRACING_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT, ...), an
// option (tracing.WithConfig) or a Config field (Config.Exporter).
// Signal is "tracing" for the tracing component's refusals; metrics'
// ConfigError is the same type. The message never repeats a secret value.
type ConfigError = otelcore.ConfigError

// sig is what sets tracing apart from metrics in the shared exporter core.
var sig = otelcore.Traces(registry.Exporters.Linked,
	func(cfg any, src map[string]string) error { return samplerFallbacks(cfg.(*Config), src) },
	ErrNotStarted, ErrInactive)

func (c Config) clone() Config {
	c.Export = otelcore.CloneExport(c.Export)
	if c.SamplerRatio != nil {
		r := *c.SamplerRatio
		c.SamplerRatio = &r
	}
	return c
}
