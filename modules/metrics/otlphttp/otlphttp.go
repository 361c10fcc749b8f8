// Package otlphttp links the otlp-http metrics exporter: OTLP (protobuf)
// over HTTP, pushed every export_interval. Import it for its effect:
//
//	import _ "github.com/svckit/svc/modules/metrics/otlphttp"
//
// Without it a component whose exporter is (or auto resolves to) otlp-http
// fails construction with a *metrics.ConfigError naming this import.
// Endpoint, headers and timeout come resolved from the metrics component;
// OpenTelemetry's exporter still reads its transport settings
// (OTEL_EXPORTER_OTLP_[METRICS_]COMPRESSION, _CERTIFICATE,
// _CLIENT_CERTIFICATE, _CLIENT_KEY, the temporality and histogram
// preferences) from the environment.
package otlphttp

import (
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"

	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/modules/metrics/internal/registry"
)

func init() {
	registry.RegisterPush("otlp-http", otelcore.OTLP(otlpmetrichttp.New, otlpmetrichttp.WithEndpointURL, otlpmetrichttp.WithHeaders, otlpmetrichttp.WithTimeout))
}
