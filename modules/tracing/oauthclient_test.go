package tracing_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"

	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/modules/oauthclient/oauthclienttest"
	"github.com/svckit/svc/modules/tracing"
	"github.com/svckit/svc/modules/tracing/tracingtest"
)

// The outbound token client starts its fetch spans from the global
// tracer: once tracing is on they reach the collector, linked to the
// request that needed the token.
func TestOAuthClientFetchSpansAreExported(t *testing.T) {
	clearEnv(t)
	rcv := tracingtest.NewReceiver(t)
	tr, err := tracing.New(tracing.WithEndpoint(rcv.URL))
	if err != nil {
		t.Fatal(err)
	}
	open(t, tr)

	srv := oauthclienttest.NewServer(t)
	c, err := oauthclient.New(srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	p, err := oauthclient.ClientCredentials("billing", oauthclient.WithClient(c))
	if err != nil {
		t.Fatal(err)
	}

	ctx, request := otel.Tracer("svc.test").Start(context.Background(), "GET /invoices")
	if _, err := p.Token(ctx); err != nil {
		t.Fatal(err)
	}
	request.End()
	tracingtest.Flush(t, tr)

	fetch, ok := rcv.Find("svc.oauthclient.fetch")
	if !ok {
		t.Fatalf("no %s span exported: %+v", "svc.oauthclient.fetch", rcv.Spans())
	}
	if fetch.Scope != "github.com/svckit/svc/modules/oauthclient" || fetch.Kind != "SPAN_KIND_CLIENT" ||
		fetch.Attributes["svc.oauthclient.pattern"] != "billing" || fetch.Attributes["svc.oauthclient.grant"] != "client_credentials" {
		t.Fatalf("fetch span %+v", fetch)
	}
	want := tracingtest.Link{TraceID: request.SpanContext().TraceID().String(), SpanID: request.SpanContext().SpanID().String()}
	if len(fetch.Links) != 1 || fetch.Links[0] != want {
		t.Fatalf("fetch links %v, want the request %v", fetch.Links, want)
	}
}
