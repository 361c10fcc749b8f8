package bearer

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
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
// provider, rebuilding the counter when the provider changes (instruments
// of an old provider stay bound to it, otel-go#4291). Cache hits are not
// counted: the counter is what the issuer sees.
type introspectMetrics struct {
	mu       sync.Mutex
	provider metric.MeterProvider
	requests metric.Int64Counter
}

func (m *introspectMetrics) count(outcome string) {
	p := otel.GetMeterProvider()
	m.mu.Lock()
	if m.requests == nil || m.provider != p {
		m.provider = p
		m.requests, _ = p.Meter(meterScope).Int64Counter("svc.authn.introspections",
			metric.WithDescription("Token introspection requests (RFC 7662) sent to the issuer, by outcome."),
			metric.WithUnit("{request}"))
	}
	c := m.requests
	m.mu.Unlock()
	c.Add(context.Background(), 1, introspectOutcomes[outcome]...)
}
