package otlphttp_test

import (
	"github.com/svckit/svc/modules/tracing"
	_ "github.com/svckit/svc/modules/tracing/otlphttp" // links the otlp-http exporter
)

// With the import, an endpoint (SVC_TRACING_ENDPOINT, or
// OTEL_EXPORTER_OTLP_ENDPOINT) turns the exporter on; without it,
// construction fails naming this import.
func Example() {
	tr, err := tracing.FromConfig(tracing.Config{
		Exporter: "otlp-http",
		Export:   tracing.Export{Endpoint: "http://127.0.0.1:4318/v1/traces", ServiceName: "shop"},
	})
	_, _ = tr, err // open and close it with the app (fxsvc.Tracing() does)
}
