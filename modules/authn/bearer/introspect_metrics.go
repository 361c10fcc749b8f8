package bearer

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/svckit/svc/internal/otelglobal"
)

// The svc.outcome values of svc.authn.introspections: four, whatever the
// tokens and answers, so the label stays bounded.
const (
	outcomeActive   = "active"   // an active token whose claims passed
	outcomeInactive = "inactive" // active: false
	outcomeRefused  = "refused"  // active, but a claim was refused
	outcomeFailed   = "failed"   // no usable answer: the request answered 503
)

var introspectOutcomes = func() map[string][]metric.AddOption {
	m := map[string][]metric.AddOption{}
	for _, o := range []string{outcomeActive, outcomeInactive, outcomeRefused, outcomeFailed} {
		m[o] = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("svc.outcome", o)))}
	}
	return m
}()

// meterScope is the instrumentation scope of the verifier's metrics.
const meterScope = "github.com/svckit/svc/modules/authn/bearer"

// introspectMetrics counts introspection requests on the global meter
// provider, as every svc component does (otelglobal). Cache hits are not
// counted: the counter is what the issuer sees.
type introspectMetrics struct {
	in otelglobal.Instruments[metric.Int64Counter]
}

func (m *introspectMetrics) count(outcome string) {
	c := m.in.Get(func(p metric.MeterProvider, _ *metric.Int64Counter) *metric.Int64Counter {
		c, _ := p.Meter(meterScope).Int64Counter("svc.authn.introspections",
			metric.WithDescription("Token introspection requests (RFC 7662) sent to the issuer, by outcome."),
			metric.WithUnit("{request}"))
		return &c
	})
	(*c).Add(context.Background(), 1, introspectOutcomes[outcome]...)
}
