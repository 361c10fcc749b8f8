package console_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/svckit/svc/modules/metrics"
	_ "github.com/svckit/svc/modules/metrics/console" // links the console exporter
)

// SVC_METRICS_EXPORTER=console (here in code) writes the metrics as JSON
// lines every export interval and once more at Close.
func Example() {
	var out bytes.Buffer
	m, err := metrics.FromConfig(metrics.Config{Exporter: "console", Export: metrics.Export{ServiceName: "shop"}},
		metrics.WithConsoleWriter(&out))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := m.Open(ctx); err != nil {
		panic(err)
	}
	orders, _ := m.Counter("shop.orders")
	orders.Add(ctx, 2)
	if err := m.Close(ctx); err != nil { // the final export
		panic(err)
	}
	fmt.Println(strings.Contains(out.String(), `"Name":"shop.orders"`))
	// Output:
	// true
}
