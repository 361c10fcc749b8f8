package tracing

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/zap"

	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/modules/tracing/internal/registry"
)

// newProvider builds the SDK provider for a resolved, active config: the
// registered exporter behind a batch span processor, so that ending a span
// never waits on the network.
func (t *Tracing) newProvider(ctx context.Context) (otelcore.Provider, error) {
	factory, _ := registry.Exporters.Lookup(t.cfg.Exporter) // New checked it is linked
	exp, err := factory(ctx, t.c.Setup())
	if err != nil {
		return nil, fmt.Errorf("tracing: build the %s exporter: %w", t.cfg.Exporter, otelcore.RedactExport(err, t.cfg.Export))
	}
	return sdktrace.NewTracerProvider(
		sdktrace.WithResource(t.c.Resource()),
		sdktrace.WithSampler(sdkSampler(t.cfg.Sampler, t.cfg.SamplerRatio)),
		sdktrace.WithBatcher(redactingExporter{SpanExporter: exp, t: t},
			sdktrace.WithExportTimeout(t.cfg.ExportTimeout)),
	), nil
}

// redactingExporter hides the config's secrets in export errors. The batch
// processor hands those errors to otel.Handle, which logs them, and a
// collector may echo a header or credential back in its error body.
//
// Once the component is closing, a failed export is the final flush
// failing: it is logged once as the component's warning (or, out of time,
// left to Close's "abandoned" warning) and not passed on to
// OpenTelemetry's error handler, which would log it a second time.
type redactingExporter struct {
	sdktrace.SpanExporter
	t *Tracing
}

func (e redactingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := otelcore.RedactExport(e.SpanExporter.ExportSpans(ctx, spans), e.t.cfg.Export)
	if err == nil || !e.t.closing.Load() {
		return err
	}
	if ctx.Err() == nil {
		e.t.c.FlushFailed(err, zap.Int("spans", len(spans)))
	}
	// Out of time: Close logs that the flush was abandoned.
	return nil
}

func (e redactingExporter) Shutdown(ctx context.Context) error {
	return otelcore.RedactExport(e.SpanExporter.Shutdown(ctx), e.t.cfg.Export)
}
