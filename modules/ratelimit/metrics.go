package ratelimit

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/svckit/svc/internal/otelglobal"
	"github.com/svckit/svc/internal/reqfacts"
)

const meterScope = "github.com/svckit/svc/modules/ratelimit"

// limitedCounter counts refused requests by route and limit on the global
// meter provider, as every svc component does (otelglobal). No caller, key
// or address is ever an attribute.
type limitedCounter struct {
	in otelglobal.Instruments[metric.Int64Counter]
}

func (c *limitedCounter) add(r *http.Request, name string) {
	route, _ := reqfacts.Route(r)
	(*c.counter()).Add(context.WithoutCancel(r.Context()), 1, metric.WithAttributes(
		attribute.String("http.route", route),
		attribute.String("svc.rate_limit.name", name)))
}

func (c *limitedCounter) counter() *metric.Int64Counter {
	return c.in.Get(func(p metric.MeterProvider, _ *metric.Int64Counter) *metric.Int64Counter {
		counter, _ := p.Meter(meterScope).Int64Counter("svc.rate_limit.limited",
			metric.WithDescription("Requests refused for being over a rate limit, by route."),
			metric.WithUnit("{request}"))
		return &counter
	})
}
