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
	"context"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/modules/tracing"
	"github.com/svckit/svc/modules/tracing/internal/registry"
)

func init() { registry.Exporters.Register(string(tracing.ExporterOTLPHTTP), newExporter) }

// newExporter passes every setting explicitly, so the OpenTelemetry
// exporter reads no endpoint or header variable of its own.
func newExporter(ctx context.Context, s otelcore.Setup) (sdktrace.SpanExporter, error) {
	return otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(s.Endpoint),
		otlptracehttp.WithHeaders(s.Headers), otlptracehttp.WithTimeout(s.Timeout))
}
