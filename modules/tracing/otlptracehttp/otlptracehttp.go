// Package otlptracehttp links the otlp-http span exporter into a binary:
//
//	import _ "github.com/svckit/svc/modules/tracing/otlptracehttp"
//
// Importing it registers the exporter with package tracing; it exports
// nothing. Without the import, SVC_TRACING_EXPORTER=otlp-http (or auto
// with an endpoint) fails construction with a *tracing.ConfigError that
// names this import, and the binary links no OTLP code (the OpenTelemetry
// OTLP/HTTP exporter depends on gRPC packages too).
package otlptracehttp

import (
	"context"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/svckit/svc/modules/tracing"
)

func init() { tracing.RegisterExporter(tracing.ExporterOTLPHTTP, newExporter) }

// newExporter passes every setting explicitly, so the OpenTelemetry
// exporter reads no endpoint or header variable of its own.
func newExporter(ctx context.Context, s tracing.ExportSettings) (sdktrace.SpanExporter, error) {
	return otlptracehttp.New(ctx,
		otlptracehttp.WithEndpointURL(s.Endpoint),
		otlptracehttp.WithHeaders(s.Headers),
		otlptracehttp.WithTimeout(s.Timeout))
}
