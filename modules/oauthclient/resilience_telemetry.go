package oauthclient

import (
	"context"
	"net/http"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
)

// Telemetry of [Resilience]. Nothing is recorded on a request that is
// neither retried nor refused, beyond the HTTP client span and metrics
// of otelhttp. Instruments are looked up from the global provider when
// used, as for fetches: a provider installed after the pattern was built
// is used.
const (
	// metricRetries counts the retries a pattern considered; attributes
	// svc.oauthclient.pattern, server.address, server.port, error.type (the status
	// retried for, or "connection") and svc.outcome: retried, or why not
	// (budget_exhausted, deadline, wait_too_long, breaker_open).
	metricRetries = "svc.oauthclient.retries"
	// metricBreakerRefusals counts requests an open breaker refused;
	// attributes svc.oauthclient.pattern, server.address, server.port.
	metricBreakerRefusals = "svc.oauthclient.breaker.refusals"
	// metricBreakerState is 1 for a host's breaker's current state and 0
	// for the others (svc.breaker.state: closed, open, half_open);
	// attributes svc.oauthclient.pattern, server.address, server.port. It is written
	// when the state changes.
	metricBreakerState = "svc.oauthclient.breaker.state"
	// eventRetry is added to the request's span for each retry it
	// considered; attributes http.request.resend_count (the number the
	// retry would have), error.type, svc.outcome and
	// svc.oauthclient.retry.wait (seconds).
	eventRetry = "svc.oauthclient.retry"

	attrBreakerState = "svc.breaker.state"
	attrResendCount  = "http.request.resend_count"
)

// hostAttrs are the attributes naming h: the pattern, server.address
// and server.port (none on the shared entry of hosts over MaxHosts).
func (p *Pattern) hostAttrs(h *host) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 2, 5)
	attrs[0], attrs[1] = attribute.String(attrPattern, p.name), attribute.String("server.address", h.addr)
	if h.port != 0 {
		attrs = append(attrs, attribute.Int("server.port", h.port))
	}
	return attrs
}

// hostFields are hostAttrs as log fields.
func (p *Pattern) hostFields(h *host) []zap.Field {
	fields := []zap.Field{zap.String(attrPattern, p.name), zap.String("server.address", h.addr)}
	if h.port != 0 {
		fields = append(fields, zap.Int("server.port", h.port))
	}
	return fields
}

// retryDecided records a retry that was considered, sent or not.
func (p *Pattern) retryDecided(ctx context.Context, h *host, n int, reason string, wait time.Duration, decision string) {
	attrs := append(p.hostAttrs(h), attribute.String(attrError, reason), attribute.String(attrOutcome, decision))
	if n, err := otel.GetMeterProvider().Meter(instrumentationScope).Int64Counter(metricRetries,
		metric.WithDescription("Retries of outbound requests considered, by outcome"), metric.WithUnit("{retry}")); err == nil {
		n.Add(ctx, 1, metric.WithAttributes(attrs...))
	}
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent(eventRetry, trace.WithAttributes(attribute.Int(attrResendCount, n),
			attribute.String(attrError, reason), attribute.String(attrOutcome, decision),
			attribute.Float64("svc.oauthclient.retry.wait", wait.Seconds())))
	}
}

// breakerRefused records a request an open breaker refused.
func (p *Pattern) breakerRefused(ctx context.Context, h *host) {
	if n, err := otel.GetMeterProvider().Meter(instrumentationScope).Int64Counter(metricBreakerRefusals,
		metric.WithDescription("Outbound requests a circuit breaker refused unsent"), metric.WithUnit("{request}")); err == nil {
		n.Add(ctx, 1, metric.WithAttributes(p.hostAttrs(h)...))
	}
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent("svc.oauthclient.breaker_open", trace.WithAttributes(p.hostAttrs(h)...))
	}
}

// breakerChanged records a change of a host's breaker state, and logs
// its opening (a warning) and its closing (info).
func (p *Pattern) breakerChanged(ctx context.Context, h *host, from, to breakerState) {
	if from == to {
		return
	}
	if g, err := otel.GetMeterProvider().Meter(instrumentationScope).Int64Gauge(metricBreakerState,
		metric.WithDescription("1 for the current state of an outbound circuit breaker, 0 for the others"), metric.WithUnit("1")); err == nil {
		for _, s := range []breakerState{stateClosed, stateOpen, stateHalfOpen} {
			v := int64(0)
			if s == to {
				v = 1
			}
			g.Record(ctx, v, metric.WithAttributes(append(p.hostAttrs(h), attribute.String(attrBreakerState, s.String()))...))
		}
	}
	log := p.client.logger
	switch {
	case to == stateOpen && from == stateClosed:
		log.Warn("svc.oauthclient circuit breaker open", append(p.hostFields(h), zap.Duration("open_for", p.resilience.OpenFor))...)
	case to == stateClosed:
		log.Info("svc.oauthclient circuit breaker closed", p.hostFields(h)...)
	}
}

// resendCounted is the base transport under otelhttp for a resilient
// pattern: it puts the repeat's number on the attempt's client span
// (http.request.resend_count, HTTP client semantic conventions).
type resendCounted struct{ base http.RoundTripper }

func (t resendCounted) RoundTrip(r *http.Request) (*http.Response, error) {
	if n, ok := r.Context().Value(resendKey{}).(int); ok {
		trace.SpanFromContext(r.Context()).SetAttributes(attribute.Int(attrResendCount, n))
	}
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}
