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
	"io"
	"net/http"
	"sync"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// Setup is what the core hands an exporter when the component opens. The
// settings are resolved: an exporter reads none of them from the
// environment (OpenTelemetry's OTLP exporters still read their transport
// settings: compression, certificates).
type Setup struct {
	// Endpoint is the export URL without embedded credentials (they are in
	// Headers as Basic authorization), or the collector default.
	Endpoint string
	// Headers are the configured headers plus the authorization header.
	// Never nil, so an OTLP exporter does not fall back to
	// OTEL_EXPORTER_OTLP_HEADERS behind the config's back.
	Headers map[string]string
	// Timeout bounds one export (export_timeout).
	Timeout time.Duration
	// Console is where the console exporter writes.
	Console io.Writer
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
}

// Scraper is implemented by a State that can be scraped: metrics.Handler
// serves its handler.
type Scraper interface {
	ScrapeHandler() http.Handler
}

var (
	mu        sync.RWMutex
	factories = map[string]Factory{}
)

// Register adds the factory for the exporter name (a metrics.Exporter
// value). It panics on a second registration of one name or a factory
// without Reader: both are programming errors found at init.
func Register(name string, f Factory) {
	if f.Reader == nil {
		panic("metrics/internal/registry: exporter " + name + " registered without a Reader")
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := factories[name]; dup {
		panic("metrics/internal/registry: exporter " + name + " registered twice")
	}
	factories[name] = f
}

// Lookup returns the factory registered for name.
func Lookup(name string) (Factory, bool) {
	mu.RLock()
	defer mu.RUnlock()
	f, ok := factories[name]
	return f, ok
}

// StateOf returns the state the exporter of component m (a
// *metrics.Metrics) prepared, or nil. Package metrics sets it in its init:
// this package cannot name the component's type without an import cycle,
// and the state is no business of the public API.
var StateOf func(m any) any
