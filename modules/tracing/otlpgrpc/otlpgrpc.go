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
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"

	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/modules/tracing/internal/registry"
)

func init() {
	registry.Register("otlp-grpc", otelcore.OTLP(otlptracegrpc.New, otlptracegrpc.WithEndpointURL, otlptracegrpc.WithHeaders, otlptracegrpc.WithTimeout))
}
