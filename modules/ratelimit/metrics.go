package ratelimit

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/svckit/svc/internal/reqfacts"
)

const meterScope = "github.com/svckit/svc/modules/ratelimit"

// limitedCounter counts refused requests by route and limit on the global
// meter provider, rebuilt when the provider changes (instruments made
// before a provider is installed stay bound to the old one, otel-go#4291).
// No caller, key or address is ever an attribute.
type limitedCounter struct {
	mu  sync.Mutex
	cur atomic.Pointer[boundCounter]
}

type boundCounter struct {
	provider metric.MeterProvider
	counter  metric.Int64Counter
}

func (c *limitedCounter) add(r *http.Request, name string) {
	route, _ := reqfacts.Route(r)
	c.counter().Add(context.WithoutCancel(r.Context()), 1, metric.WithAttributes(
		attribute.String("http.route", route),
		attribute.String("svc.rate_limit.name", name)))
}

func (c *limitedCounter) counter() metric.Int64Counter {
	p := otel.GetMeterProvider()
	if b := c.cur.Load(); b != nil && b.provider == p {
		return b.counter
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.cur.Load(); b != nil && b.provider == p {
		return b.counter
	}
	counter, _ := p.Meter(meterScope).Int64Counter("svc.rate_limit.limited",
		metric.WithDescription("Requests refused for being over a rate limit, by route."),
		metric.WithUnit("{request}"))
	c.cur.Store(&boundCounter{provider: p, counter: counter})
	return counter
}
