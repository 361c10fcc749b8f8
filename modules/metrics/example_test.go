package metrics_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/metrics"
)

// chargeCard is wrapped once, at package level: calls record into
// whichever component is active when they run.
var chargeCard = metrics.WrapCtxErr(func(ctx context.Context) error {
	return nil
}, metrics.Name("shop.billing.charge"))

func Example() {
	m, err := metrics.FromConfig(metrics.Config{Exporter: "prometheus", Export: metrics.Export{ServiceName: "shop"}})
	if err != nil {
		panic(err)
	}
	if err := m.Open(context.Background()); err != nil {
		panic(err)
	}
	defer m.Close(context.Background())

	_ = chargeCard(context.Background())
	orders, _ := m.Counter("shop.orders", metrics.WithDescription("Orders placed."))
	orders.Add(context.Background(), 3)

	gate := func(next http.Handler) http.Handler { return next } // the app's own, e.g. authn.Require
	r := chi.NewRouter()
	r.With(gate).Get("/internal/metrics", metrics.Handler(m).ServeHTTP)
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/internal/metrics", nil))
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "shop_orders_total") || strings.HasPrefix(line, "shop_billing_charge_calls_total") {
			fmt.Println(line[:strings.Index(line, "{")], line[strings.LastIndex(line, " ")+1:])
		}
	}
	// Output:
	// shop_billing_charge_calls_total 1
	// shop_orders_total 3
}
