package metrics

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"

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

// resource is built from the config only: the environment was read (or
// deliberately not) when the config was.
func (m *Metrics) resource() *resource.Resource {
	name := m.cfg.ServiceName
	if name == "" {
		// OpenTelemetry's default for an unnamed service.
		name = "unknown_service:" + filepath.Base(os.Args[0])
	}
	keys := make([]string, 0, len(m.cfg.ResourceAttributes))
	for k := range m.cfg.ResourceAttributes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	attrs := []attribute.KeyValue{
		attribute.String("telemetry.sdk.name", "opentelemetry"),
		attribute.String("telemetry.sdk.language", "go"),
	}
	for _, k := range keys {
		attrs = append(attrs, attribute.String(k, m.cfg.ResourceAttributes[k]))
	}
	// service.name last, so the field wins over a resource attribute of the
	// same key.
	attrs = append(attrs, attribute.String("service.name", name))
	return resource.NewSchemaless(attrs...)
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

// exportURL is the endpoint without embedded credentials (they travel as a
// Basic header) or OpenTelemetry's default collector address. Passing it
// always keeps the exporter from reading OTEL_EXPORTER_OTLP_*ENDPOINT on
// its own: the config already decided.
func (m *Metrics) exportURL() string {
	if !m.cfg.Endpoint.IsSet() {
		if m.cfg.Exporter == ExporterOTLPGRPC {
			return "http://localhost:4317"
		}
		return "http://localhost:4318/v1/metrics"
	}
	u, err := url.Parse(m.cfg.Endpoint.Value())
	if err != nil { // resolve checked it; keep secrets out of any error path
		return ""
	}
	u.User = nil
	return u.String()
}

// exportHeaders are the configured headers plus the Basic authorization.
// Always passed (even empty) so the exporter does not read
// OTEL_EXPORTER_OTLP_HEADERS on its own behind FromConfig's back.
func (m *Metrics) exportHeaders() map[string]string {
	h := make(map[string]string, len(m.cfg.Headers)+1)
	for k, v := range m.cfg.Headers {
		h[k] = v.Value()
	}
	if auth := m.cfg.AuthorizationHeader(); auth.IsSet() {
		h["Authorization"] = auth.Value()
	}
	return h
}
