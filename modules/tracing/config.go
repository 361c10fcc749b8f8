package tracing

import (
	"fmt"
	"maps"
	"time"

	"github.com/svckit/svc/internal/otlpconf"
	"github.com/svckit/svc/secret"
)

// Defaults.
const (
	// DefaultExportTimeout bounds one export, as OpenTelemetry's OTLP
	// exporters do by default.
	DefaultExportTimeout = 10 * time.Second
	// DefaultShutdownTimeout bounds the final flush. It is short so that
	// it fits fxsvc's default stop budget of 15 s beside the server's drain
	// (8 s) and the metrics flush (5 s): spans are exported every few
	// seconds while the app runs, so the last flush holds little.
	DefaultShutdownTimeout = 1 * time.Second
)

// EnvPrefix prefixes every Config field's environment variable.
const EnvPrefix = "SVC_TRACING_"

// Config is the tracing component's configuration. The env tags name the
// variables read under EnvPrefix (SVC_TRACING_EXPORTER, ...). Zero fields
// mean "unset": New fills them from the environment fallbacks and the
// defaults.
//
// Printing a Config (fmt, JSON, zap, slog) shows Endpoint with its
// credentials masked, and Headers values and BasicAuthPassword as ***.
type Config struct {
	// ServiceName is the service.name resource attribute. Falls back to
	// OTEL_SERVICE_NAME; OpenTelemetry's "unknown_service:<program>" when
	// still empty.
	ServiceName string `env:"SERVICE_NAME" json:"service_name,omitempty"`
	// Exporter is where spans go; "" means auto.
	Exporter Exporter `env:"EXPORTER" json:"exporter,omitempty"`
	// Endpoint is the OTLP collector address. Falls back to
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as given; no path means "/"), then
	// OTEL_EXPORTER_OTLP_ENDPOINT (a base URL: /v1/traces is appended for
	// otlp-http). An otlp-http endpoint without a path gets /v1/traces.
	// Credentials embedded in it (https://user:pass@host) are sent as Basic
	// authorization, never in the URL.
	Endpoint secret.URL `env:"ENDPOINT" json:"endpoint,omitempty"`
	// Headers go on every OTLP export. Falls back to
	// OTEL_EXPORTER_OTLP_TRACES_HEADERS, then OTEL_EXPORTER_OTLP_HEADERS,
	// when empty.
	Headers Headers `env:"HEADERS" json:"headers,omitempty"`
	// BasicAuthUsername is set together with BasicAuthPassword.
	BasicAuthUsername string `env:"BASIC_AUTH_USERNAME" json:"basic_auth_username,omitempty"`
	// BasicAuthPassword is set together with BasicAuthUsername.
	BasicAuthPassword secret.String `env:"BASIC_AUTH_PASSWORD" json:"basic_auth_password,omitempty"`
	// Sampler decides which traces are recorded; "" means
	// parentbased_always_on. Falls back to OTEL_TRACES_SAMPLER.
	Sampler Sampler `env:"SAMPLER" json:"sampler,omitempty"`
	// SamplerRatio is the share of traces the traceidratio samplers keep,
	// in [0, 1]; nil means 1. Falls back to OTEL_TRACES_SAMPLER_ARG when
	// the sampler takes a ratio (and is ignored there otherwise, as
	// OpenTelemetry does); set here with another sampler it is refused.
	SamplerRatio *float64 `env:"SAMPLER_RATIO" json:"sampler_ratio,omitempty"`
	// ExportTimeout bounds one export. Environment values are seconds
	// ("10", "0.5") or Go durations ("500ms").
	ExportTimeout time.Duration `env:"EXPORT_TIMEOUT" json:"export_timeout,omitempty"`
	// ResourceAttributes are extra resource attributes; from the
	// environment as "k=v,k2=v2" with percent-encoded values.
	ResourceAttributes map[string]string `env:"RESOURCE_ATTRIBUTES" json:"resource_attributes,omitempty"`
	// ShutdownTimeout bounds the flush when the app stops; a flush that
	// runs out is abandoned with a warning.
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" json:"shutdown_timeout,omitempty"`
}

// DefaultConfig returns a Config holding the defaults: exporter auto,
// sampler parentbased_always_on, 10 s export timeout, 1 s shutdown timeout.
func DefaultConfig() Config {
	return Config{
		Exporter:        ExporterAuto,
		Sampler:         SamplerParentBasedAlwaysOn,
		ExportTimeout:   DefaultExportTimeout,
		ShutdownTimeout: DefaultShutdownTimeout,
	}
}

// AuthorizationHeader returns "Basic base64(username:password)" (RFC 7617)
// from the basic auth fields, or from credentials embedded in Endpoint when
// those are empty; "" when no Basic credentials are configured.
func (c Config) AuthorizationHeader() secret.String { return c.basic().AuthorizationHeader() }

func (c Config) basic() otlpconf.Basic {
	return otlpconf.Basic{Endpoint: c.Endpoint, Username: c.BasicAuthUsername, Password: c.BasicAuthPassword}
}

func (c Config) secrets() otlpconf.Secrets {
	return otlpconf.Secrets{Basic: c.basic(), Headers: c.Headers}
}

func (c Config) clone() Config {
	c.Headers = maps.Clone(c.Headers)
	c.ResourceAttributes = maps.Clone(c.ResourceAttributes)
	if c.SamplerRatio != nil {
		r := *c.SamplerRatio
		c.SamplerRatio = &r
	}
	return c
}

// fields names each Config field in errors: its setting, Go and option names.
var fields = otlpconf.Fields{
	{Spec: "service_name", GoName: "ServiceName", Option: "tracing.WithServiceName"},
	{Spec: "exporter", GoName: "Exporter", Option: "tracing.WithExporter"},
	{Spec: "endpoint", GoName: "Endpoint", Option: "tracing.WithEndpoint"},
	{Spec: "headers", GoName: "Headers", Option: "tracing.WithHeaders"},
	{Spec: "basic_auth_username", GoName: "BasicAuthUsername", Option: "tracing.WithBasicAuth"},
	{Spec: "basic_auth_password", GoName: "BasicAuthPassword", Option: "tracing.WithBasicAuth"},
	{Spec: "sampler", GoName: "Sampler", Option: "tracing.WithSampler"},
	{Spec: "sampler_ratio", GoName: "SamplerRatio", Option: "tracing.WithSamplerRatio"},
	{Spec: "export_timeout", GoName: "ExportTimeout", Option: "tracing.WithExportTimeout"},
	{Spec: "resource_attributes", GoName: "ResourceAttributes", Option: "tracing.WithResourceAttributes"},
	{Spec: "shutdown_timeout", GoName: "ShutdownTimeout", Option: "tracing.WithShutdownTimeout"},
}

// sources maps a field's snake_case name to the setting its value came
// from (an environment variable or an option). A field absent here was set
// through Config, and errors name "Config.<Field>".
type sources map[string]string

func (s sources) name(spec string) string { return fields.Setting(s, spec) }

func (s sources) fromConfig(spec string) bool {
	_, ok := s[spec]
	return !ok
}

func (s sources) fail(spec, format string, args ...any) error {
	return &ConfigError{Setting: s.name(spec), Field: spec, Reason: fmt.Sprintf(format, args...)}
}

// failMissing names the unset partner of a set field the way the set one
// was given: SVC_TRACING_BASIC_AUTH_PASSWORD beside
// SVC_TRACING_BASIC_AUTH_USERNAME, Config.X beside Config.Y.
func (s sources) failMissing(present, missing, reason string) error {
	setting := fields.PartnerSetting(s, present, missing, EnvPrefix, "tracing.")
	return &ConfigError{Setting: setting, Field: missing, Reason: reason}
}
