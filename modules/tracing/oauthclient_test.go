package tracing_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/modules/oauthclient/oauthclienttest"
	"github.com/svckit/svc/modules/tracing"
	"github.com/svckit/svc/modules/tracing/tracingtest"
	"github.com/svckit/svc/secret"
)

// The outbound token client starts its fetch spans from the global
// tracer: once tracing is on they reach the collector. A fetch the request
// waits for is a child of the request's span; a refresh ahead of expiry,
// which the request does not wait for, links to the request that started
// it.
func TestOAuthClientFetchSpansAreExported(t *testing.T) {
	clearEnv(t)
	rcv := tracingtest.NewReceiver(t)
	tr, err := tracing.New(tracing.WithConfig(tracing.Config{Export: tracing.Export{Endpoint: secret.URL(rcv.URL)}}))
	if err != nil {
		t.Fatal(err)
	}
	open(t, tr)

	srv := oauthclienttest.NewServer(t)
	clock := &stepClock{now: time.Now()}
	c, err := oauthclient.New(append(srv.ClientOptions(), oauthclient.Clock(clock.Now))...)
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
	// Inside the refresh window of the hour-long token (its last minute to
	// minute and a half), before its end: the
	// next request gets the cached token and starts a refresh.
	clock.advance(59*time.Minute + 45*time.Second)
	ctx, later := otel.Tracer("svc.test").Start(context.Background(), "GET /invoices")
	if _, err := p.Token(ctx); err != nil {
		t.Fatal(err)
	}
	later.End()
	for deadline := time.Now().Add(10 * time.Second); len(srv.Requests()) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no refresh ahead of expiry: %d fetches", len(srv.Requests()))
		}
	}
	_ = c.Close(context.Background()) // the refresh has ended its span
	tracingtest.Flush(t, tr)

	var fetches []tracingtest.Span
	for _, s := range rcv.Spans() {
		if s.Name == "svc.oauthclient.fetch" {
			fetches = append(fetches, s)
		}
	}
	if len(fetches) != 2 {
		t.Fatalf("%d %s spans exported, want 2: %+v", len(fetches), "svc.oauthclient.fetch", rcv.Spans())
	}
	first, refresh := fetches[0], fetches[1]
	if first.Attributes["svc.oauthclient.trigger"] != "first" {
		first, refresh = refresh, first
	}
	if first.Scope != "github.com/svckit/svc/modules/oauthclient" || first.Kind != "SPAN_KIND_CLIENT" ||
		first.Attributes["svc.oauthclient.pattern"] != "billing" || first.Attributes["svc.oauthclient.grant"] != "client_credentials" {
		t.Fatalf("fetch span %+v", first)
	}
	if first.TraceID != request.SpanContext().TraceID().String() || first.ParentSpanID != request.SpanContext().SpanID().String() || len(first.Links) != 0 {
		t.Fatalf("the first fetch %+v is not a child of the request that waited for it", first)
	}
	want := tracingtest.Link{TraceID: later.SpanContext().TraceID().String(), SpanID: later.SpanContext().SpanID().String()}
	if refresh.Attributes["svc.oauthclient.trigger"] != "refresh" || refresh.TraceID == want.TraceID ||
		len(refresh.Links) != 1 || refresh.Links[0] != want {
		t.Fatalf("the refresh %+v must link to the request that started it (%v), in a trace of its own", refresh, want)
	}
}

// stepClock is a clock the test moves by hand.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *stepClock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }
