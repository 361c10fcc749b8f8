package metrics

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/svckit/svc/internal/otlpconf"
	"github.com/svckit/svc/secret"
)

// Defaults of Config (the README's metrics table).
const (
	DefaultExportInterval  = 60 * time.Second
	DefaultExportTimeout   = 30 * time.Second
	DefaultShutdownTimeout = 5 * time.Second
)

// EnvPrefix prefixes every Config field's environment variable.
const EnvPrefix = "SVC_METRICS_"

// Config is the metrics component's configuration. The env tags name the variables read
// under EnvPrefix (SVC_METRICS_SERVICE_NAME, ...). Zero fields mean "unset":
// New fills them from the environment fallbacks and the defaults.
//
// Printing a Config (fmt, JSON, zap, slog) shows Endpoint with its
// credentials masked, and Headers values and BasicAuthPassword as ***.
type Config struct {
	// ServiceName is the service.name resource attribute. Falls back to
	// OTEL_SERVICE_NAME; OpenTelemetry's "unknown_service:<program>" when
	// still empty.
	ServiceName string `env:"SERVICE_NAME" json:"service_name,omitempty"`
	// Exporter is where metrics go; "" means auto.
	Exporter Exporter `env:"EXPORTER" json:"exporter,omitempty"`
	// Endpoint is the OTLP collector address. Falls back to
	// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT (used as given; no path means "/"), then
	// OTEL_EXPORTER_OTLP_ENDPOINT (a base URL: /v1/metrics is appended for
	// otlp-http). An otlp-http endpoint without a path gets /v1/metrics.
	// Credentials embedded in it (https://user:pass@host) are sent as Basic
	// authorization, never in the URL.
	Endpoint secret.URL `env:"ENDPOINT" json:"endpoint,omitempty"`
	// Headers go on every OTLP export. Falls back to
	// OTEL_EXPORTER_OTLP_METRICS_HEADERS, then OTEL_EXPORTER_OTLP_HEADERS,
	// when empty.
	Headers Headers `env:"HEADERS" json:"headers,omitempty"`
	// BasicAuthUsername is set together with BasicAuthPassword.
	BasicAuthUsername string `env:"BASIC_AUTH_USERNAME" json:"basic_auth_username,omitempty"`
	// BasicAuthPassword is set together with BasicAuthUsername.
	BasicAuthPassword secret.String `env:"BASIC_AUTH_PASSWORD" json:"basic_auth_password,omitempty"`
	// ExportInterval is the push period of the OTLP and console exporters
	// (prometheus is pulled and ignores it). Environment values are seconds
	// ("60", "0.5") or Go durations ("500ms").
	ExportInterval time.Duration `env:"EXPORT_INTERVAL" json:"export_interval,omitempty"`
	// ExportTimeout bounds one periodic export.
	ExportTimeout time.Duration `env:"EXPORT_TIMEOUT" json:"export_timeout,omitempty"`
	// ResourceAttributes are extra resource attributes; from the
	// environment as "k=v,k2=v2" with percent-encoded values.
	ResourceAttributes map[string]string `env:"RESOURCE_ATTRIBUTES" json:"resource_attributes,omitempty"`
	// ShutdownTimeout bounds the flush when the app stops; a flush that
	// runs out is abandoned with a warning.
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" json:"shutdown_timeout,omitempty"`
}

// DefaultConfig returns a Config holding the defaults: exporter
// auto, 60 s export interval, 30 s export timeout, 5 s shutdown timeout.
func DefaultConfig() Config {
	return Config{
		Exporter:        ExporterAuto,
		ExportInterval:  DefaultExportInterval,
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
	return c
}

// fields names each Config field in errors: its setting, Go and option names.
var fields = otlpconf.Fields{
	{Spec: "service_name", GoName: "ServiceName", Option: "metrics.WithServiceName"},
	{Spec: "exporter", GoName: "Exporter", Option: "metrics.WithExporter"},
	{Spec: "endpoint", GoName: "Endpoint", Option: "metrics.WithEndpoint"},
	{Spec: "headers", GoName: "Headers", Option: "metrics.WithHeaders"},
	{Spec: "basic_auth_username", GoName: "BasicAuthUsername", Option: "metrics.WithBasicAuth"},
	{Spec: "basic_auth_password", GoName: "BasicAuthPassword", Option: "metrics.WithBasicAuth"},
	{Spec: "export_interval", GoName: "ExportInterval", Option: "metrics.WithExportInterval"},
	{Spec: "export_timeout", GoName: "ExportTimeout", Option: "metrics.WithExportTimeout"},
	{Spec: "resource_attributes", GoName: "ResourceAttributes", Option: "metrics.WithResourceAttributes"},
	{Spec: "shutdown_timeout", GoName: "ShutdownTimeout", Option: "metrics.WithShutdownTimeout"},
}

// sources maps a field's setting name (export_interval, …) to the setting its value came from (an
// environment variable or an option). A field absent here was set through
// Config, and errors name "Config.<Field>".
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
// was given: SVC_METRICS_BASIC_AUTH_PASSWORD beside
// SVC_METRICS_BASIC_AUTH_USERNAME, Config.X beside Config.Y.
func (s sources) failMissing(present, missing, reason string) error {
	setting := fields.PartnerSetting(s, present, missing, EnvPrefix, "metrics.")
	return &ConfigError{Setting: setting, Field: missing, Reason: reason}
}

// resolve validates c, fills defaults and resolves auto. It never reads the
// environment: the callers merged it in before.
func resolve(c Config, src sources) (Config, error) {
	var err error
	if c.ExportInterval, err = positive(c.ExportInterval, DefaultExportInterval, "export_interval", src); err != nil {
		return c, err
	}
	if c.ExportTimeout, err = positive(c.ExportTimeout, DefaultExportTimeout, "export_timeout", src); err != nil {
		return c, err
	}
	if c.ShutdownTimeout, err = positive(c.ShutdownTimeout, DefaultShutdownTimeout, "shutdown_timeout", src); err != nil {
		return c, err
	}
	if c.Exporter == "" {
		c.Exporter = ExporterAuto
	}
	if c.Exporter, err = ParseExporter(string(c.Exporter)); err != nil {
		return c, src.fail("exporter", "%v", err)
	}
	var endpointUser bool
	if c.Endpoint.IsSet() {
		if endpointUser, err = checkEndpoint(c, src); err != nil {
			return c, err
		}
	}
	if err := checkBasicAuth(c, src, endpointUser); err != nil {
		return c, err
	}
	if err := otlpconf.CheckHeaders(c.Headers); err != nil {
		return c, src.fail("headers", "%v", err)
	}
	if otlpconf.HasHeader(c.Headers, "authorization") && c.AuthorizationHeader().IsSet() {
		return c, src.fail("headers", "an Authorization header and Basic credentials are both set; keep one")
	}
	if err := src.fault(otlpconf.CheckServiceName(c.ServiceName)); err != nil {
		return c, err
	}
	for k := range c.ResourceAttributes {
		if strings.TrimSpace(k) == "" {
			return c, src.fail("resource_attributes", "an attribute has an empty key")
		}
	}
	if c.Exporter == ExporterAuto {
		c.Exporter = ExporterNone
		if c.Endpoint.IsSet() {
			c.Exporter = ExporterOTLPHTTP
		}
	}
	if c.Exporter == ExporterOTLPHTTP && c.Endpoint.IsSet() {
		c.Endpoint = otlpconf.HTTPEndpoint(c.Endpoint, src.name("endpoint"), "METRICS", "/v1/metrics")
	}
	return c, nil
}

func positive(d, def time.Duration, spec string, src sources) (time.Duration, error) {
	if d == 0 && src.fromConfig(spec) {
		return def, nil
	}
	if d <= 0 {
		return d, src.fail(spec, "must be a positive duration, got %v", d)
	}
	return d, nil
}

// checkEndpoint refuses an endpoint the exporters could not use and
// reports whether it carries credentials.
func checkEndpoint(c Config, src sources) (bool, error) {
	user, f := c.basic().CheckEndpoint()
	return user, src.fault(f)
}

func checkBasicAuth(c Config, src sources, fromEndpoint bool) error {
	return src.fault(c.basic().CheckBasicAuth(fromEndpoint))
}

// fault names the setting of a refusal of the shared rules the way it
// was given.
func (s sources) fault(f *otlpconf.Fault) error {
	switch {
	case f == nil:
		return nil
	case f.Missing != "":
		return s.failMissing(f.Field, f.Missing, f.Reason)
	}
	return s.fail(f.Field, "%s", f.Reason)
}
