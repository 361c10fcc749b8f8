package otlphttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/svckit/svc/modules/metrics"
	_ "github.com/svckit/svc/modules/metrics/otlphttp" // links the otlp-http exporter
	"github.com/svckit/svc/secret"
)

// With the import, an endpoint (SVC_METRICS_ENDPOINT, or
// OTEL_EXPORTER_OTLP_ENDPOINT) turns the exporter on; without it,
// construction fails naming this import.
func Example() {
	// A stand-in for the collector, on 127.0.0.1.
	got := make(chan string, 10)
	collector := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got <- r.Method + " " + r.URL.Path + " " + r.Header.Get("Content-Type")
	}))
	defer collector.Close()

	m, err := metrics.FromConfig(metrics.Config{
		Exporter: "otlp-http",
		Export:   metrics.Export{Endpoint: secret.URL(collector.URL + "/v1/metrics"), ServiceName: "shop"},
	})
	if err != nil {
		panic(err)
	}
	// Open and close it with the app (fxsvc.Metrics() does).
	if err := m.Open(context.Background()); err != nil {
		panic(err)
	}
	orders, err := m.Counter("shop.orders")
	if err != nil {
		panic(err)
	}
	orders.Add(context.Background(), 1)
	_ = m.Close(context.Background()) // pushes what is pending
	fmt.Println(<-got)
	// Output:
	// POST /v1/metrics application/x-protobuf
}
