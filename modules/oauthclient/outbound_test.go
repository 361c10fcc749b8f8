package oauthclient_test

import (
	"context"
	"net/http"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

// ctxStub answers every request and keeps the context it was sent with.
type ctxStub struct{ ctx context.Context }

func (s *ctxStub) RoundTrip(r *http.Request) (*http.Response, error) {
	s.ctx = r.Context()
	return &http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
}

// With no OpenTelemetry provider or propagator installed, a request goes
// to the base transport as the caller made it, without the client
// instrumentation's work (which cost ten times a stub round trip); once a
// tracer provider is installed, it gets its client span.
func TestOutboundInstrumentationOnlyOnceOpenTelemetryIsSetUp(t *testing.T) {
	s := newTokenServer(t)
	p := newCC(t, newClient(t, s, newClock()), "api")
	base := &ctxStub{}
	rt := p.Transport(base)
	ctx := context.WithValue(context.Background(), ctxStub{}, "caller")

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://api.invalid/x", nil)
	if _, err := rt.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if base.ctx != ctx {
		t.Fatal("with nothing installed, the request went through the instrumentation")
	}

	installTelemetry(t)
	if _, err := rt.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if base.ctx == ctx || !trace.SpanFromContext(base.ctx).SpanContext().IsValid() {
		t.Fatal("with a tracer provider installed, the request carries no client span")
	}
}
