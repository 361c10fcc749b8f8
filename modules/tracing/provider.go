package tracing

import (
	"context"

	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/svckit/svc/internal/otlpconf"
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

func (t *Tracing) resource() *resource.Resource {
	return otlpconf.Resource(t.cfg.ServiceName, t.cfg.ResourceAttributes)
}

func (t *Tracing) exportURL() string {
	return otlpconf.ExportURL(t.cfg.Endpoint, t.cfg.Exporter == ExporterOTLPGRPC, "/v1/traces")
}

func (t *Tracing) exportHeaders() map[string]string { return t.cfg.secrets().ExportHeaders() }
