package otlphttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"go.opentelemetry.io/otel"

	"github.com/svckit/svc/modules/tracing"
	_ "github.com/svckit/svc/modules/tracing/otlphttp" // links the otlp-http exporter
	"github.com/svckit/svc/secret"
)

// With the import, an endpoint (SVC_TRACING_ENDPOINT, or
// OTEL_EXPORTER_OTLP_ENDPOINT) turns the exporter on; without it,
// construction fails naming this import.
func Example() {
	// A stand-in for the collector, on 127.0.0.1.
	got := make(chan string, 10)
	collector := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got <- r.Method + " " + r.URL.Path + " " + r.Header.Get("Content-Type")
	}))
	defer collector.Close()

	tr, err := tracing.FromConfig(tracing.Config{
		Exporter: "otlp-http",
		Export:   tracing.Export{Endpoint: secret.URL(collector.URL + "/v1/traces"), ServiceName: "shop"},
	})
	if err != nil {
		panic(err)
	}
	// Open and close it with the app (fxsvc.Tracing() does).
	if err := tr.Open(context.Background()); err != nil {
		panic(err)
	}
	_, span := otel.Tracer("shop").Start(context.Background(), "charge card")
	span.End()
	_ = tr.Close(context.Background()) // flushes the span
	fmt.Println(<-got)
	// Output:
	// POST /v1/traces application/x-protobuf
}
