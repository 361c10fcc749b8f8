package otelcore

import (
	"context"
	"io"
	"sync"
	"time"

	"go.opentelemetry.io/otel/sdk/resource"
)

// Registry holds the exporter factories of one signal. Each exporter's
// leaf package registers its factory from init, so a binary links an
// exporter's dependencies (gRPC, the OTLP protobufs, the Prometheus
// client) only when it imports that package.
type Registry[F any] struct {
	sig       string
	mu        sync.RWMutex
	factories map[string]F
}

// NewRegistry is an empty registry for the signal named sig ("metrics").
func NewRegistry[F any](sig string) *Registry[F] {
	return &Registry[F]{sig: sig, factories: map[string]F{}}
}

// Register adds the factory for the exporter name. It panics, like
// database/sql.Register, on a second registration of one name: a
// programming error found at init.
func (r *Registry[F]) Register(name string, f F) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.factories[name]; dup {
		panic(r.sig + ": exporter " + name + " registered twice")
	}
	r.factories[name] = f
}

// Lookup returns the factory registered for name.
func (r *Registry[F]) Lookup(name string) (F, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.factories[name]
	return f, ok
}

// Linked reports whether a factory is registered for name.
func (r *Registry[F]) Linked(name string) bool {
	_, ok := r.Lookup(name)
	return ok
}

// Setup is what a signal hands its exporter's factory when the component
// opens: everything resolved, so a factory reads none of it from the
// environment (OpenTelemetry's OTLP exporters still read their transport
// settings: compression, certificates).
type Setup struct {
	// Endpoint is the collector URL without credentials (they are in
	// Headers as Basic authorization): the configured one, or
	// OpenTelemetry's default address for the exporter.
	Endpoint string
	// Headers go on every export, the Basic authorization included; never
	// nil, so an OTLP exporter does not fall back to
	// OTEL_EXPORTER_OTLP_HEADERS behind the config's back. Their values
	// are secrets: a factory never logs them.
	Headers map[string]string
	// Timeout bounds one export.
	Timeout time.Duration
	// Console is where the console exporter writes.
	Console io.Writer
}

// Setup is the factory's view of the component's resolved settings.
func (c *Component) Setup() Setup {
	return Setup{
		Endpoint: ExportURL(c.Export.Endpoint, c.Exporter == "otlp-grpc", c.Sig.path()),
		Headers:  c.Export.secrets().ExportHeaders(),
		Timeout:  c.Export.ExportTimeout,
		Console:  c.Console,
	}
}

// Resource describes the service to the collector (see Resource).
func (c *Component) Resource() *resource.Resource {
	return Resource(c.Export.ServiceName, c.Export.ResourceAttributes)
}

// OTLP is the factory of an OpenTelemetry OTLP exporter of either signal
// over either transport (newExporter is otlpmetrichttp.New,
// otlptracegrpc.New, ... with that package's options): it passes every
// setting explicitly, so the exporter reads no endpoint or header
// variable of its own. An http:// endpoint means a plaintext connection,
// https:// TLS.
func OTLP[E, O any](newExporter func(context.Context, ...O) (E, error),
	endpointURL func(string) O, headers func(map[string]string) O, timeout func(time.Duration) O) func(context.Context, Setup) (E, error) {
	return func(ctx context.Context, s Setup) (E, error) {
		return newExporter(ctx, endpointURL(s.Endpoint), headers(s.Headers), timeout(s.Timeout))
	}
}
