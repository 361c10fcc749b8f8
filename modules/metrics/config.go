package metrics

import (
	"time"

	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/modules/metrics/internal/registry"
)

// Config is the metrics component's configuration. The env tags name the
// variables read under SVC_METRICS_ (SVC_METRICS_EXPORTER,
// SVC_METRICS_ENDPOINT, ...). Zero fields mean "unset": New fills them
// from the environment fallbacks and the defaults (docs/metrics.md's
// table: export interval 60 s, export timeout 30 s, shutdown timeout 5 s).
//
// Printing a Config (fmt, JSON, zap, slog) shows Endpoint with its
// credentials masked, and Headers values and BasicAuthPassword as ***.
type Config struct {
	// Exporter is where metrics go, as SVC_METRICS_EXPORTER spells it,
	// read case-insensitively:
	//
	//   - "auto" (the default, also "") resolves to "otlp-http" when an endpoint is
	//     configured, else to "none".
	//   - "otlp-http" pushes OTLP over HTTP (protobuf) every export_interval;
	//     package modules/metrics/otlphttp links it.
	//   - "otlp-grpc" pushes OTLP over gRPC every export_interval; package
	//     modules/metrics/otlpgrpc links it.
	//   - "prometheus" keeps metrics for scraping through Handler; package
	//     modules/metrics/prometheus links it.
	//   - "console" writes metrics as JSON lines every export_interval (to
	//     standard output unless WithConsoleWriter says otherwise); package
	//     modules/metrics/console links it.
	//   - "none" disables the component: inactive, no-op meters.
	//
	// Any other value is refused with a *ConfigError.
	Exporter string `env:"EXPORTER" json:"exporter,omitempty"`
	// Export holds the settings tracing has too: service name, endpoint,
	// headers, Basic credentials, export and shutdown timeouts, resource
	// attributes. Its fields read as Config's own (cfg.Endpoint).
	Export
	// ExportInterval is the push period of the OTLP and console exporters
	// (prometheus is pulled and ignores it). Environment values are seconds
	// ("60", "0.5") or Go durations ("500ms").
	ExportInterval time.Duration `env:"EXPORT_INTERVAL" json:"export_interval,omitempty"`
}

// Export is the part of Config that the tracing component's Config has
// too; see its fields.
type Export = otelcore.Export

// ConfigError says which setting holds an invalid value: an environment
// variable (SVC_METRICS_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT, ...), an
// option (metrics.WithDefaultExporter) or a Config field (Config.Exporter).
// Signal is "metrics" for the metrics component's refusals; tracing's
// ConfigError is the same type. The message never repeats a secret value.
type ConfigError = otelcore.ConfigError

// sig is what sets metrics apart from tracing in the shared exporter core.
var sig = otelcore.Metrics(registry.Readers.Linked, ErrNotStarted, ErrInactive)

// checkInterval fills and checks export_interval, the one setting of
// metrics' own.
func checkInterval(c *Config, src map[string]string) (err error) {
	c.ExportInterval, err = sig.Positive(src, c.ExportInterval, 60*time.Second, "export_interval")
	return err
}

func (c Config) clone() Config {
	c.Export = otelcore.CloneExport(c.Export)
	return c
}
