package tracing

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"sort"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// newProvider builds the SDK provider for a resolved, active config: the
// registered exporter behind a batch span processor, so that ending a span
// never waits on the network.
func (t *Tracing) newProvider(ctx context.Context) (*sdktrace.TracerProvider, error) {
	factory, ok := factoryFor(t.cfg.Exporter)
	if !ok { // New checked this; a leaf package cannot unregister
		return nil, &Error{Msg: "tracing: the " + string(t.cfg.Exporter) + " exporter is not linked into this binary"}
	}
	exp, err := factory(ctx, ExportSettings{
		Endpoint: t.exportURL(),
		Headers:  t.exportHeaders(),
		Timeout:  t.cfg.ExportTimeout,
		Console:  t.console,
	})
	if err != nil {
		return nil, &Error{Msg: "tracing: build the " + string(t.cfg.Exporter) + " exporter", Err: redact(err, t.cfg)}
	}
	return sdktrace.NewTracerProvider(
		sdktrace.WithResource(t.resource()),
		sdktrace.WithSampler(sdkSampler(t.cfg.Sampler, t.cfg.SamplerRatio)),
		sdktrace.WithBatcher(redactingExporter{SpanExporter: exp, t: t},
			sdktrace.WithExportTimeout(t.cfg.ExportTimeout)),
	), nil
}

// resource is built from the config only: the environment was read (or
// deliberately not) when the config was.
func (t *Tracing) resource() *resource.Resource {
	name := t.cfg.ServiceName
	if name == "" {
		// OpenTelemetry's default for an unnamed service.
		name = "unknown_service:" + filepath.Base(os.Args[0])
	}
	keys := make([]string, 0, len(t.cfg.ResourceAttributes))
	for k := range t.cfg.ResourceAttributes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	attrs := []attribute.KeyValue{
		attribute.String("telemetry.sdk.name", "opentelemetry"),
		attribute.String("telemetry.sdk.language", "go"),
	}
	for _, k := range keys {
		attrs = append(attrs, attribute.String(k, t.cfg.ResourceAttributes[k]))
	}
	// service.name last, so the field wins over a resource attribute of the
	// same key.
	attrs = append(attrs, attribute.String("service.name", name))
	return resource.NewSchemaless(attrs...)
}

// exportURL is the endpoint without embedded credentials (they travel as a
// Basic header) or OpenTelemetry's default collector address. Passing it
// always keeps the exporter from reading OTEL_EXPORTER_OTLP_*ENDPOINT on
// its own: the config already decided.
func (t *Tracing) exportURL() string {
	if !t.cfg.Endpoint.IsSet() {
		if t.cfg.Exporter == ExporterOTLPGRPC {
			return "http://localhost:4317"
		}
		return "http://localhost:4318/v1/traces"
	}
	u, err := url.Parse(t.cfg.Endpoint.Value())
	if err != nil { // resolve checked it; keep secrets out of any error path
		return ""
	}
	u.User = nil
	return u.String()
}

// exportHeaders are the configured headers plus the Basic authorization.
// Always passed (even empty) so the exporter does not read
// OTEL_EXPORTER_OTLP_HEADERS on its own behind FromConfig's back.
func (t *Tracing) exportHeaders() map[string]string {
	h := make(map[string]string, len(t.cfg.Headers)+1)
	for k, v := range t.cfg.Headers {
		h[k] = v.Value()
	}
	if auth := t.cfg.AuthorizationHeader(); auth.IsSet() {
		h["Authorization"] = auth.Value()
	}
	return h
}
