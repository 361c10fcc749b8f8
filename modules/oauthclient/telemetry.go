package oauthclient

import (
	"context"
	"net/url"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Telemetry names. Everything is recorded once per token fetch, never per
// request, through the global OpenTelemetry API: with no provider
// installed it costs nothing.
const (
	// instrumentationScope names the meter and tracer.
	instrumentationScope = "github.com/svckit/svc/modules/oauthclient"
	// metricFetches counts token fetches; attributes: svc.oauthclient.pattern,
	// svc.oauthclient.grant, svc.oauthclient.trigger, svc.outcome
	// (success|failure) and, on failure, error.type.
	metricFetches = "svc.oauthclient.fetches"
	// metricFetchDuration is the duration of a fetch in seconds, retries
	// included; same attributes.
	metricFetchDuration = "svc.oauthclient.fetch.duration"
	// spanFetch is the span of a fetch. A fetch the request waits for (no
	// token yet, expired, or refused by the API) is a child of that
	// request's span; a refresh ahead of expiry, which the request does not
	// wait for, links to it instead. It carries the event
	// svc.oauthclient.retry when a lost connection was retried.
	spanFetch = "svc.oauthclient.fetch"

	attrPattern = "svc.oauthclient.pattern"
	attrGrant   = "svc.oauthclient.grant"
	attrTrigger = "svc.oauthclient.trigger"
	attrOutcome = "svc.outcome"
	attrError   = "error.type"
)

// Fetch triggers, the values of svc.oauthclient.trigger.
const (
	triggerFirst   = "first"   // no token cached yet
	triggerExpired = "expired" // the cached token expired
	triggerRefresh = "refresh" // inside the refresh window, ahead of expiry
	triggerDropped = "dropped" // an API refused the token with invalid_token
)

func (c *Client) startSpan(ctx context.Context, rq *tokenRequest) (context.Context, trace.Span) {
	opts := []trace.SpanStartOption{
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String(attrPattern, rq.pattern),
			attribute.String(attrGrant, rq.kind),
			attribute.String(attrTrigger, rq.trigger),
		),
	}
	if rq.link.IsValid() {
		if rq.trigger == triggerRefresh {
			// Ahead of expiry the request that noticed goes on with the
			// cached token: the fetch is not part of it, only started by it.
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: rq.link}))
		} else {
			// The request waits for this token: the fetch is part of it.
			ctx = trace.ContextWithSpanContext(ctx, rq.link)
		}
	}
	if m := c.meta.Load(); m != nil {
		if u, err := url.Parse(m.tokenEndpoint); err == nil {
			opts = append(opts, trace.WithAttributes(attribute.String("server.address", u.Hostname()), attribute.Int("server.port", urlPort(u))))
		}
	}
	return otel.Tracer(instrumentationScope).Start(ctx, spanFetch, opts...)
}

// endFetch records the fetch. Instruments are looked up from the global
// provider at each fetch (fetches are rare) so that a provider installed
// after the client was built is used, whatever the global delegate did.
func (c *Client) endFetch(ctx context.Context, span trace.Span, rq *tokenRequest, start time.Time, status int, err error) {
	attrs := []attribute.KeyValue{
		attribute.String(attrPattern, rq.pattern),
		attribute.String(attrGrant, rq.kind),
		attribute.String(attrTrigger, rq.trigger),
	}
	if err == nil {
		attrs = append(attrs, attribute.String(attrOutcome, "success"))
	} else {
		attrs = append(attrs, attribute.String(attrOutcome, "failure"), attribute.String(attrError, errorType(err)))
	}
	if status != 0 {
		span.SetAttributes(attribute.Int("http.response.status_code", status))
	}
	if err != nil {
		span.SetAttributes(attribute.String(attrError, errorType(err)))
		span.SetStatus(codes.Error, errorType(err))
		c.fetchLog.failed(c.logger, c.clock.Now(), rq, err, status)
	} else {
		c.fetchLog.succeeded(c.logger, c.clock.Now(), rq)
	}
	span.End()

	meter := otel.GetMeterProvider().Meter(instrumentationScope)
	set := metric.WithAttributes(attrs...)
	if n, e := meter.Int64Counter(metricFetches, metric.WithDescription("Token fetches by outcome"), metric.WithUnit("{fetch}")); e == nil {
		n.Add(ctx, 1, set)
	}
	if h, e := meter.Float64Histogram(metricFetchDuration, metric.WithDescription("Duration of token fetches"), metric.WithUnit("s")); e == nil {
		h.Record(ctx, time.Since(start).Seconds(), set)
	}
}
