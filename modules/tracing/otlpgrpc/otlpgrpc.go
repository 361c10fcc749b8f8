// Package otlpgrpc links the otlp-grpc span exporter into a binary:
//
//	import _ "github.com/svckit/svc/modules/tracing/otlpgrpc"
//
// Importing it registers the exporter with package tracing; it exports
// nothing. Without the import, SVC_TRACING_EXPORTER=otlp-grpc fails
// construction with a *tracing.ConfigError that names this import, and the
// binary links no OTLP/gRPC exporter.
package otlpgrpc

import (
	"context"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/modules/tracing"
	"github.com/svckit/svc/modules/tracing/internal/registry"
)

func init() { registry.Exporters.Register(string(tracing.ExporterOTLPGRPC), newExporter) }

// newExporter passes every setting explicitly, so the OpenTelemetry
// exporter reads no endpoint or header variable of its own. An http://
// endpoint means a plaintext connection, https:// TLS.
func newExporter(ctx context.Context, s otelcore.Setup) (sdktrace.SpanExporter, error) {
	return otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(s.Endpoint),
		otlptracegrpc.WithHeaders(s.Headers), otlptracegrpc.WithTimeout(s.Timeout))
}
