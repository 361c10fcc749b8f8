package oauthclient

import (
	"context"
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"

	"github.com/svckit/svc/internal/otelglobal"
)

// traced is base (http.DefaultTransport when nil) behind OpenTelemetry's
// HTTP client instrumentation: every request sent gets a client span named
// by its method (HTTP client semantic conventions) and the W3C
// traceparent, tracestate and baggage of its context, and is counted in
// the HTTP client metrics (http.client.request.duration, ...).
//
// While nobody has installed a tracer provider, a meter provider or a
// propagator (OpenTelemetry's own unset globals), requests go straight to
// base: the instrumentation would only build attributes for no-op spans
// and instruments, which cost ten times the round trip to a stub
// (bench/oauthclient). Once any is installed, every request is
// instrumented.
//
// The pattern's transport sits in front of it, so the token a request
// needs is fetched in the request's own context, before the client span:
// the fetch is a child of the span that asked, not of the outbound call.
func traced(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &instrumented{
		plain: base,
		traced: otelhttp.NewTransport(base,
			otelhttp.WithPropagators(globalPropagator{}),
			otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method })),
	}
}

// unsetPropagator is the process-global propagator before anyone installs
// one: OpenTelemetry's delegate, which only forwards to what is installed
// later (the providers' are otelglobal's).
var unsetPropagator = otel.GetTextMapPropagator()

// instrumented sends through traced once OpenTelemetry is set up in the
// process, else through plain.
type instrumented struct {
	plain, traced http.RoundTripper
}

func (t *instrumented) RoundTrip(r *http.Request) (*http.Response, error) {
	if !otelglobal.TracesInstalled() && !otelglobal.MetersInstalled() && otel.GetTextMapPropagator() == unsetPropagator {
		return t.plain.RoundTrip(r)
	}
	return t.traced.RoundTrip(r)
}

// traced is [traced] over base, with the repeat's number put on each
// attempt's span when the pattern retries ([Resilience]).
func (p *Pattern) traced(base http.RoundTripper) http.RoundTripper {
	if p.resilience != nil {
		base = resendCounted{base}
	}
	return traced(base)
}

// globalPropagator is the process-global propagator as it is at each
// request, not as it was when the transport was built: a pattern's
// transport is often built before the tracing component installs the W3C
// propagator, and outlives apps that come and go in one process (tests).
type globalPropagator struct{}

func (globalPropagator) Inject(ctx context.Context, c propagation.TextMapCarrier) {
	otel.GetTextMapPropagator().Inject(ctx, c)
}

func (globalPropagator) Extract(ctx context.Context, c propagation.TextMapCarrier) context.Context {
	return otel.GetTextMapPropagator().Extract(ctx, c)
}

func (globalPropagator) Fields() []string { return otel.GetTextMapPropagator().Fields() }
