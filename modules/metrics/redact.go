package metrics

import (
	"context"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/svckit/svc/internal/otlpconf"
)

// redactingExporter hides the config's secrets in export errors. The
// periodic reader hands those errors to otel.Handle, which logs them, and a
// collector may echo a header or credential back in its error body.
type redactingExporter struct {
	sdkmetric.Exporter
	cfg Config
}

func (e redactingExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	return redact(e.Exporter.Export(ctx, rm), e.cfg)
}

func (e redactingExporter) ForceFlush(ctx context.Context) error {
	return redact(e.Exporter.ForceFlush(ctx), e.cfg)
}

func (e redactingExporter) Shutdown(ctx context.Context) error {
	return redact(e.Exporter.Shutdown(ctx), e.cfg)
}

// redact hides every secret of c in err (see otlpconf.Redact).
func redact(err error, c Config) error {
	return otlpconf.Redact(err, c.secrets())
}
