package prometheus_test

import (
	"context"
	"fmt"

	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/modules/metrics/prometheus"
)

// SVC_METRICS_EXPORTER=prometheus (here in code) keeps the metrics for
// scraping through metrics.Handler; Registry gives the Prometheus registry
// for collectors of the app's own.
func ExampleRegistry() {
	m, err := metrics.FromConfig(metrics.Config{Exporter: "prometheus", Export: metrics.Export{ServiceName: "shop"}})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := m.Open(ctx); err != nil {
		panic(err)
	}
	defer m.Close(ctx)
	orders, _ := m.Counter("shop.orders")
	orders.Add(ctx, 2)

	families, err := prometheus.Registry(m).Gather()
	if err != nil {
		panic(err)
	}
	for _, f := range families {
		if f.GetName() == "shop_orders_total" {
			fmt.Println(f.GetName(), f.GetMetric()[0].GetCounter().GetValue())
		}
	}
	// Output:
	// shop_orders_total 2
}
