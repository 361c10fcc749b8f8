// Package registry is the bridge between package metrics and the exporter
// packages beside it (otlphttp, otlpgrpc, prometheus, console). Each
// exporter registers itself here from its own init, so a binary links an
// exporter's dependencies (gRPC, the OTLP protobufs, the Prometheus client)
// only when it imports that exporter's package.
//
// It is internal: the set of exporters is the spec's, and the contract
// between the core and an exporter may change with the core.
package registry

import (
	"context"
	"net/http"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/svckit/svc/internal/otelcore"
)

// Setup is what the core hands an exporter when the component opens: the
// resolved settings every signal's exporters get, and the metrics' own.
type Setup struct {
	otelcore.Setup
	// State is what the exporter's Prepare returned for this component,
	// or nil.
	State any
	// Periodic wraps a push exporter in the component's periodic reader:
	// secrets redacted from its errors, export_interval and export_timeout
	// applied.
	Periodic func(sdkmetric.Exporter) sdkmetric.Reader
}

// Factory builds one exporter.
type Factory struct {
	// Prepare, when set, runs once as the component is built and returns
	// per-component state the exporter keeps on it (the prometheus
	// exporter's own registry). It runs before Open, so the state exists
	// from construction on.
	Prepare func() any
	// Reader builds the metric reader when the component opens.
	Reader func(ctx context.Context, s Setup) (sdkmetric.Reader, error)
	// View, when set, renames or reshapes streams for this exporter alone
	// (the prometheus exporter's names must pass promtool's lint).
	View sdkmetric.View
}

// Scraper is implemented by a State that can be scraped: metrics.Handler
// serves its handler.
type Scraper interface {
	ScrapeHandler() http.Handler
}

// Readers holds the factory of each linked exporter, by its
// metrics.Config.Exporter value.
var Readers = otelcore.NewRegistry[Factory]("metrics")

// Register adds the factory for the exporter name. It panics on a second
// registration of one name or a factory without Reader: both are
// programming errors found at init.
func Register(name string, f Factory) {
	if f.Reader == nil {
		panic("metrics: exporter " + name + " registered without a Reader")
	}
	Readers.Register(name, f)
}

// RegisterPush adds a push exporter: its reader is the component's
// periodic reader around what newExporter builds. It is how the console
// and OTLP exporters register, so none of them repeats the wrapping.
func RegisterPush[E sdkmetric.Exporter](name string, newExporter func(context.Context, otelcore.Setup) (E, error)) {
	Register(name, Factory{Reader: func(ctx context.Context, s Setup) (sdkmetric.Reader, error) {
		e, err := newExporter(ctx, s.Setup)
		if err != nil {
			return nil, err
		}
		return s.Periodic(e), nil
	}})
}
