// Package otlpgrpc links the otlp-grpc metrics exporter: OTLP over gRPC,
// pushed every export_interval. Import it for its effect:
//
//	import _ "github.com/svckit/svc/modules/metrics/otlpgrpc"
//
// It is the one package that brings gRPC into a binary for metrics.
// Without it a component whose exporter is otlp-grpc fails construction
// with a *metrics.ConfigError naming this import. The exporter reads no
// environment of its own: endpoint, headers and timeout come resolved from
// the metrics component.
package otlpgrpc

import (
	"context"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/modules/metrics/internal/registry"
)

func init() { registry.RegisterPush(string(metrics.ExporterOTLPGRPC), newExporter) }

// newExporter passes every setting explicitly, so the OpenTelemetry
// exporter reads no endpoint or header variable of its own.
func newExporter(ctx context.Context, s registry.Setup) (sdkmetric.Exporter, error) {
	return otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(s.Endpoint),
		otlpmetricgrpc.WithHeaders(s.Headers), otlpmetricgrpc.WithTimeout(s.Timeout))
}
