package fxsvc_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/modules/oauthclient/oauthclienttest"
	"github.com/svckit/svc/modules/tracing"
	"github.com/svckit/svc/modules/tracing/tracingtest"
	"github.com/svckit/svc/svctest"
)

// Issue 24 item 4: with tracing on, a call from one service to another
// through a pattern's transport is one trace at a real OTLP receiver: the
// caller's server span, under it the token fetch the request waited for
// and the client span (HTTP client conventions) whose traceparent the
// called service continues in its own server span. The client call is
// counted in the HTTP client metrics too.
func TestOutboundCallsCarryTheTrace(t *testing.T) {
	tracingEnvClean(t)
	metricsEnvClean(t)
	rcv := tracingtest.NewReceiver(t)
	t.Setenv("SVC_TRACING_ENDPOINT", rcv.URL)
	issuer := oauthclienttest.NewServer(t)

	// The service called: it only answers.
	var mu sync.Mutex
	var seen http.Header
	invoices := chi.NewRouter()
	invoices.Get("/invoices/{id}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = r.Header.Clone()
		mu.Unlock()
		_, _ = w.Write([]byte("paid"))
	})
	called := svctest.Start(t, fx.Supply(zap.NewNop(), invoices), fxsvc.Tracing(), fxsvc.Serve())

	// The caller: GET /orders/{id} asks the invoices service with its
	// client-credentials token.
	var tr *tracing.Tracing
	var m *metrics.Metrics
	caller := svctest.Start(t, fx.Supply(zap.NewNop()),
		fxsvc.Tracing(), fxsvc.Metrics(metrics.WithConfig(metrics.Config{Exporter: "prometheus"})),
		fxsvc.OAuthClient(issuer.ClientOptions()...), fxsvc.ClientCredentials("invoices"),
		fx.Provide(fx.Annotate(func(p *oauthclient.Pattern) *chi.Mux {
			r := chi.NewRouter()
			r.Get("/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
				req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, called.URL+"/invoices/7", nil)
				resp, err := p.Client().Do(req)
				if err != nil {
					http.Error(w, err.Error(), http.StatusBadGateway)
					return
				}
				defer resp.Body.Close()
				_, _ = io.Copy(w, resp.Body)
			})
			r.Method(http.MethodGet, "/metrics", metrics.Handler(nil))
			return r
		}, fx.ParamTags(`name:"invoices"`))),
		fxsvc.Serve(), fx.Populate(&tr, &m))

	if resp := caller.Request("GET", "/orders/42").Send(t); resp.Status != http.StatusOK || resp.Body != "paid" {
		t.Fatalf("GET /orders/42: %d %s", resp.Status, resp.Body)
	}
	tracingtest.Flush(t, tr)

	server, ok := rcv.Find("GET /orders/{id}")
	if !ok {
		t.Fatalf("no server span for the caller's route: %+v", rcv.Spans())
	}
	fetch, ok := rcv.Find("svc.oauthclient.fetch")
	if !ok || fetch.TraceID != server.TraceID || fetch.ParentSpanID != server.SpanID || len(fetch.Links) != 0 {
		t.Fatalf("the token fetch %+v is not a child of the request's span %s/%s", fetch, server.TraceID, server.SpanID)
	}
	client, ok := rcv.Find("GET")
	if !ok || client.Kind != "SPAN_KIND_CLIENT" || client.TraceID != server.TraceID || client.ParentSpanID != server.SpanID {
		t.Fatalf("the outbound call's span %+v is not a client span under the request's", client)
	}
	for k, want := range map[string]string{
		"http.request.method": "GET", "http.response.status_code": "200",
		"url.full": called.URL + "/invoices/7", "server.address": "127.0.0.1",
	} {
		if got := client.Attributes[k]; got != want {
			t.Errorf("client span %s = %q, want %q", k, got, want)
		}
	}
	downstream, ok := rcv.Find("GET /invoices/{id}")
	if !ok || downstream.TraceID != server.TraceID || downstream.ParentSpanID != client.SpanID {
		t.Fatalf("the called service's span %+v does not continue the client span %s/%s", downstream, client.TraceID, client.SpanID)
	}
	mu.Lock()
	tp := seen.Get("Traceparent")
	auth := seen.Get("Authorization")
	mu.Unlock()
	if want := "00-" + client.TraceID + "-" + client.SpanID + "-01"; tp != want {
		t.Errorf("traceparent sent %q, want %q", tp, want)
	}
	if !strings.HasPrefix(auth, "Bearer tok-") {
		t.Errorf("Authorization sent %q, want the pattern's token", auth)
	}

	body := caller.Request("GET", "/metrics").Send(t).Body
	if !strings.Contains(body, `http_client_request_duration_seconds_count{`) || !strings.Contains(body, `server_address="127.0.0.1"`) {
		t.Errorf("no HTTP client metrics in the caller's exposition:\n%s", body)
	}
}
