// Package registry is the bridge between package tracing and the exporter
// packages beside it (otlphttp, otlpgrpc, console). Each exporter registers
// itself here from its own init, so a binary links an exporter's
// dependencies (gRPC, the OTLP protobufs) only when it imports that
// exporter's package.
//
// It is internal: the set of exporters is the spec's, and the contract
// between the core and an exporter may change with the core.
package registry

import (
	"context"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/svckit/svc/internal/otelcore"
)

// Factory builds a span exporter from the component's resolved settings;
// Open calls it once per component.
type Factory func(ctx context.Context, s otelcore.Setup) (sdktrace.SpanExporter, error)

// Exporters holds the factory of each linked exporter, by its
// tracing.Config.Exporter value.
var Exporters = otelcore.NewRegistry[Factory]("tracing")

// Register adds the factory for the exporter name; it panics on a second
// registration of one name, a programming error found at init.
func Register[E sdktrace.SpanExporter](name string, newExporter func(context.Context, otelcore.Setup) (E, error)) {
	Exporters.Register(name, func(ctx context.Context, s otelcore.Setup) (sdktrace.SpanExporter, error) {
		return newExporter(ctx, s)
	})
}
