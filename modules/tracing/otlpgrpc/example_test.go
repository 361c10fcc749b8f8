package otlpgrpc_test

import (
	"github.com/svckit/svc/modules/tracing"
	_ "github.com/svckit/svc/modules/tracing/otlpgrpc" // links the otlp-grpc exporter
)

// SVC_TRACING_EXPORTER=otlp-grpc, here in code.
func Example() {
	tr, err := tracing.FromConfig(tracing.Config{
		Exporter: "otlp-grpc",
		Export:   tracing.Export{Endpoint: "http://127.0.0.1:4317", ServiceName: "shop"},
	})
	_, _ = tr, err // open and close it with the app (fxsvc.Tracing() does)
}
