package oauthclient_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"

	"github.com/svckit/svc/modules/tracing"
	_ "github.com/svckit/svc/modules/tracing/otlphttp"
	"github.com/svckit/svc/modules/tracing/tracingtest"
	"github.com/svckit/svc/secret"
)

// With tracing on, the token request carries the W3C traceparent as
// every outbound call does: the caller's trace, and as parent the fetch's
// span, itself the child of the caller's span.
func TestTokenRequestCarriesTheCallersTrace(t *testing.T) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "SVC_TRACING_") || strings.HasPrefix(k, "OTEL_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	rcv := tracingtest.NewReceiver(t)
	tr, err := tracing.New(tracing.WithConfig(tracing.Config{Export: tracing.Export{Endpoint: secret.URL(rcv.URL)}}))
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close(context.Background()) })

	s := newTokenServer(t)
	p := newCC(t, newClient(t, s, newClock()), "api")
	ctx, caller := otel.Tracer("svc.test").Start(context.Background(), "GET /orders")
	if _, err := p.Token(ctx); err != nil {
		t.Fatal(err)
	}
	caller.End()
	tracingtest.Flush(t, tr)

	s.mu.Lock()
	sent := s.headers[0].Get("Traceparent")
	s.mu.Unlock()
	parts := strings.Split(sent, "-")
	if len(parts) != 4 {
		t.Fatalf("the token request's traceparent is %q, want one", sent)
	}
	fetch, ok := rcv.Find("svc.oauthclient.fetch")
	if !ok {
		t.Fatalf("no fetch span exported: %+v", rcv.Spans())
	}
	want := caller.SpanContext()
	if parts[1] != want.TraceID().String() || parts[2] != fetch.SpanID || fetch.ParentSpanID != want.SpanID().String() {
		t.Fatalf("traceparent %q, fetch span %s (parent %s): want the caller's trace %s, the fetch as parent, a child of the caller's span %s",
			sent, fetch.SpanID, fetch.ParentSpanID, want.TraceID(), want.SpanID())
	}
}
