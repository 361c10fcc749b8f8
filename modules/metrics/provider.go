package metrics

import (
	"context"
	"fmt"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/svckit/svc/internal/otlpconf"
	"github.com/svckit/svc/modules/metrics/internal/registry"
)

// newProvider builds the SDK provider for a resolved, active config.
func (m *Metrics) newProvider(ctx context.Context) (*sdkmetric.MeterProvider, error) {
	reader, err := m.newReader(ctx)
	if err != nil {
		return nil, err
	}
	return sdkmetric.NewMeterProvider(
		sdkmetric.WithResource(m.resource()),
		sdkmetric.WithReader(reader),
	), nil
}

func (m *Metrics) resource() *resource.Resource {
	return otlpconf.Resource(m.cfg.ServiceName, m.cfg.ResourceAttributes)
}

// newReader asks the linked exporter (build checked it is) for its reader,
// handing it the resolved settings only.
func (m *Metrics) newReader(ctx context.Context) (sdkmetric.Reader, error) {
	if m.factory.Reader == nil {
		return nil, &Error{Msg: fmt.Sprintf("metrics: no reader for exporter %q", m.cfg.Exporter)}
	}
	r, err := m.factory.Reader(ctx, registry.Setup{
		Endpoint: m.exportURL(),
		Headers:  m.exportHeaders(),
		Timeout:  m.cfg.ExportTimeout,
		Console:  m.console,
		State:    m.expState,
		Periodic: func(e sdkmetric.Exporter) sdkmetric.Reader {
			return sdkmetric.NewPeriodicReader(redactingExporter{Exporter: e, cfg: m.cfg},
				sdkmetric.WithInterval(m.cfg.ExportInterval),
				sdkmetric.WithTimeout(m.cfg.ExportTimeout))
		},
	})
	if err != nil {
		return nil, &Error{Msg: fmt.Sprintf("metrics: build the %s exporter", m.cfg.Exporter), Err: redact(err, m.cfg)}
	}
	return r, nil
}

func (m *Metrics) exportURL() string {
	return otlpconf.ExportURL(m.cfg.Endpoint, m.cfg.Exporter == ExporterOTLPGRPC, "/v1/metrics")
}

func (m *Metrics) exportHeaders() map[string]string { return m.cfg.secrets().ExportHeaders() }
