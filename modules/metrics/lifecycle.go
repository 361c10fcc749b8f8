package metrics

import (
	"context"
	"fmt"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/modules/metrics/internal/registry"
)

// newProvider asks the linked exporter (build checked it is) for its
// reader, handing it the resolved settings only.
func (m *Metrics) newProvider(ctx context.Context) (otelcore.Provider, error) {
	if m.factory.Reader == nil {
		return nil, fmt.Errorf("metrics: no reader for exporter %q", m.cfg.Exporter)
	}
	r, err := m.factory.Reader(ctx, registry.Setup{
		Setup: m.c.Setup(),
		State: m.expState,
		Periodic: func(e sdkmetric.Exporter) sdkmetric.Reader {
			return sdkmetric.NewPeriodicReader(redactingExporter{Exporter: e, secrets: m.cfg.Export},
				sdkmetric.WithInterval(m.cfg.ExportInterval),
				sdkmetric.WithTimeout(m.cfg.ExportTimeout))
		},
	})
	if err != nil {
		return nil, fmt.Errorf("metrics: build the %s exporter: %w", m.cfg.Exporter, otelcore.RedactExport(err, m.cfg.Export))
	}
	opts := []sdkmetric.Option{sdkmetric.WithResource(m.c.Resource()), sdkmetric.WithReader(r)}
	if m.factory.View != nil {
		opts = append(opts, sdkmetric.WithView(m.factory.View))
	}
	return sdkmetric.NewMeterProvider(opts...), nil
}

// redactingExporter hides the config's secrets in export errors. The
// periodic reader hands those errors to otel.Handle, which logs them, and a
// collector may echo a header or credential back in its error body.
type redactingExporter struct {
	sdkmetric.Exporter
	secrets Export
}

func (e redactingExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	return otelcore.RedactExport(e.Exporter.Export(ctx, rm), e.secrets)
}

func (e redactingExporter) ForceFlush(ctx context.Context) error {
	return otelcore.RedactExport(e.Exporter.ForceFlush(ctx), e.secrets)
}

func (e redactingExporter) Shutdown(ctx context.Context) error {
	return otelcore.RedactExport(e.Exporter.Shutdown(ctx), e.secrets)
}
