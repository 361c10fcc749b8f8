package otlpgrpc_test

import (
	"github.com/svckit/svc/modules/metrics"
	_ "github.com/svckit/svc/modules/metrics/otlpgrpc" // links the otlp-grpc exporter
)

// SVC_METRICS_EXPORTER=otlp-grpc, here in code.
func Example() {
	m, err := metrics.FromConfig(metrics.Config{
		Exporter: "otlp-grpc",
		Export:   metrics.Export{Endpoint: "http://127.0.0.1:4317", ServiceName: "shop"},
	})
	_, _ = m, err // open and close it with the app (fxsvc.Metrics() does)
}
