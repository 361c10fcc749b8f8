// Package otlphttp links the otlp-http span exporter into a binary:
//
//	import _ "github.com/svckit/svc/modules/tracing/otlphttp"
//
// Importing it registers the exporter with package tracing; it exports
// nothing. Without the import, SVC_TRACING_EXPORTER=otlp-http (or auto
// with an endpoint) fails construction with a *tracing.ConfigError that
// names this import, and the binary links no OTLP code (the OpenTelemetry
// OTLP/HTTP exporter depends on gRPC packages too).
package otlphttp

import (
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"

	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/modules/tracing/internal/registry"
)

func init() {
	registry.Register("otlp-http", otelcore.OTLP(otlptracehttp.New, otlptracehttp.WithEndpointURL, otlptracehttp.WithHeaders, otlptracehttp.WithTimeout))
}
