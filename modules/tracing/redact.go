package tracing

import (
	"context"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/zap"

	"github.com/svckit/svc/internal/otlpconf"
)

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
	err := redact(e.SpanExporter.ExportSpans(ctx, spans), e.t.cfg)
	if err == nil || !e.t.closing.Load() {
		return err
	}
	if ctx.Err() == nil {
		e.t.log.Warn("tracing flush failed; pending spans may be dropped",
			zap.String("exporter", string(e.t.cfg.Exporter)),
			zap.Int("spans", len(spans)),
			zap.Error(err))
	}
	// Out of time: Close logs that the flush was abandoned.
	return nil
}

func (e redactingExporter) Shutdown(ctx context.Context) error {
	return redact(e.SpanExporter.Shutdown(ctx), e.t.cfg)
}

// redact hides every secret of c in err (see otlpconf.Redact).
func redact(err error, c Config) error {
	return otlpconf.Redact(err, c.secrets())
}
