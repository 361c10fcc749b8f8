package allexporters_test

import (
	"fmt"

	"github.com/svckit/svc/modules/metrics"
	_ "github.com/svckit/svc/modules/metrics/allexporters" // every exporter SVC_METRICS_EXPORTER may name
)

// With every exporter linked, the deployment chooses one by name; each
// is built here (and never opened, so nothing is sent).
func Example() {
	for _, e := range []string{"prometheus", "console", "otlp-http", "otlp-grpc"} {
		_, err := metrics.FromConfig(metrics.Config{Exporter: e, Export: metrics.Export{Endpoint: "http://127.0.0.1:4318", ServiceName: "shop"}})
		fmt.Println(e, err)
	}
	// Output:
	// prometheus <nil>
	// console <nil>
	// otlp-http <nil>
	// otlp-grpc <nil>
}
