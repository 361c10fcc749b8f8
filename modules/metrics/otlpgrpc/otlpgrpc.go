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
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"

	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/modules/metrics/internal/registry"
)

func init() {
	registry.RegisterPush("otlp-grpc", otelcore.OTLP(otlpmetricgrpc.New, otlpmetricgrpc.WithEndpointURL, otlpmetricgrpc.WithHeaders, otlpmetricgrpc.WithTimeout))
}
