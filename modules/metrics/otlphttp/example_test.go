package otlphttp_test

import (
	"github.com/svckit/svc/modules/metrics"
	_ "github.com/svckit/svc/modules/metrics/otlphttp" // links the otlp-http exporter
)

// With the import, an endpoint (SVC_METRICS_ENDPOINT, or
// OTEL_EXPORTER_OTLP_ENDPOINT) turns the exporter on; without it,
// construction fails naming this import.
func Example() {
	m, err := metrics.FromConfig(metrics.Config{
		Exporter: "otlp-http",
		Export:   metrics.Export{Endpoint: "http://127.0.0.1:4318/v1/metrics", ServiceName: "shop"},
	})
	_, _ = m, err // open and close it with the app (fxsvc.Metrics() does)
}
