package oauthclient_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/svckit/svc/modules/oauthclient"
)

// Each attempt is its own client span, the repeat carrying
// http.request.resend_count; the request's span has one
// svc.oauthclient.retry event; retries and breaker states are counted.
func TestResilientAttemptsFollowTheHTTPClientConventions(t *testing.T) {
	reader, spans := installTelemetry(t)
	api := newFaultAPI(t, fault{status: 503})
	hc, _, _ := resilientClient(t, newClient(t, newTokenServer(t), newClock()),
		oauthclient.Resilience{MaxAttempts: 2, MinRequests: 2})
	ctx, parent := otel.Tracer("test").Start(context.Background(), "inbound")
	if resp, err := send(t, hc, ctx, http.MethodGet, api.URL, ""); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	parent.End()

	var resends []int64
	var events int
	for _, s := range spans.Ended() {
		switch s.Name() {
		case "GET":
			n := int64(0)
			for _, kv := range s.Attributes() {
				if kv.Key == "http.request.resend_count" {
					n = kv.Value.AsInt64()
				}
			}
			resends = append(resends, n)
		case "inbound":
			for _, e := range s.Events() {
				if e.Name == "svc.oauthclient.retry" {
					events++
				}
			}
		}
	}
	if len(resends) != 2 || resends[0] != 0 || resends[1] != 1 {
		t.Fatalf("client spans' resend counts %v, want [0 1] (none on the first)", resends)
	}
	if events != 1 {
		t.Fatalf("%d retry events on the request's span, want 1", events)
	}

	// Two failures open the breaker (MinRequests 2, MaxAttempts 2: the
	// second attempt's failure is the budget's to allow).
	api.mu.Lock()
	api.down = &fault{status: 502}
	api.mu.Unlock()
	send(t, hc, context.Background(), http.MethodGet, api.URL, "")
	if _, err := send(t, hc, context.Background(), http.MethodGet, api.URL, ""); !errors.As(err, new(*oauthclient.CircuitOpenError)) {
		t.Fatalf("err %v, want the breaker open", err)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	retried, refusals, open := int64(0), int64(0), int64(-1)
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					outcome, _ := dp.Attributes.Value("svc.outcome")
					host, _ := dp.Attributes.Value("server.address")
					if (m.Name == "svc.oauthclient.retries" || strings.HasPrefix(m.Name, "svc.oauthclient.breaker")) && host.AsString() != "127.0.0.1" {
						t.Errorf("%s: server.address %q", m.Name, host.AsString())
					}
					switch {
					case m.Name == "svc.oauthclient.retries" && outcome.AsString() == "retried":
						retried += dp.Value
					case m.Name == "svc.oauthclient.breaker.refusals":
						refusals += dp.Value
					}
				}
			case metricdata.Gauge[int64]:
				for _, dp := range d.DataPoints {
					if st, _ := dp.Attributes.Value("svc.breaker.state"); m.Name == "svc.oauthclient.breaker.state" && st.AsString() == "open" {
						open = dp.Value
					}
				}
			}
		}
	}
	if retried < 1 || refusals != 1 || open != 1 {
		t.Fatalf("retried %d, refusals %d, open %d: want ≥ 1, 1, 1", retried, refusals, open)
	}
}
