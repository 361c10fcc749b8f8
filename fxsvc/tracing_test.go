package fxsvc_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/tracing"
	_ "github.com/svckit/svc/modules/tracing/otlphttp"
	"github.com/svckit/svc/modules/tracing/tracingtest"
	"github.com/svckit/svc/secret"
	"github.com/svckit/svc/svctest"
)

const (
	proofTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	proofSpanID  = "00f067aa0ba902b7"
)

func tracingEnvClean(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "SVC_TRACING_") || strings.HasPrefix(k, "OTEL_") || k == "SVC_ENV_LOAD" {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
}

func getWithTraceparent(t *testing.T, app *svctest.App, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, app.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Traceparent", "00-"+proofTraceID+"-"+proofSpanID+"-01")
	resp, err := app.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// Issue 10, proof: a real OTLP/HTTP receiver gets the request's span named
// by its route, in the trace of the incoming traceparent.
//
// The span is the server span of fxsvc.Serve's telemetry wrapper: the
// handler does nothing about tracing.
func TestTracingProofReceiverGetsTheRouteSpanInTheIncomingTrace(t *testing.T) {
	tracingEnvClean(t)
	rcv := tracingtest.NewReceiver(t)
	t.Setenv("SVC_TRACING_ENDPOINT", rcv.URL)
	r := chi.NewRouter()
	r.Get("/items/{id}", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	var tr *tracing.Tracing
	app := svctest.Start(t, fx.Supply(zap.NewNop(), r), fxsvc.Tracing(), fxsvc.Serve(), fx.Populate(&tr))
	if resp := getWithTraceparent(t, app, "/items/42"); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	tracingtest.Flush(t, tr)

	span, ok := rcv.Find("GET /items/{id}")
	if !ok {
		t.Fatalf("the receiver got no span named by the route: %+v", rcv.Spans())
	}
	if span.TraceID != proofTraceID || span.ParentSpanID != proofSpanID {
		t.Fatalf("span in trace %s under %s; want the traceparent's %s under %s", span.TraceID, span.ParentSpanID, proofTraceID, proofSpanID)
	}
	if span.Attributes["http.route"] != "/items/{id}" || span.Kind != "SPAN_KIND_SERVER" {
		t.Fatalf("span %+v", span)
	}
}

// The gate's security events land in the server span the telemetry wrapper
// starts outside the gate: it carries the refusal attribute and event, and
// reaches the receiver.
func TestTracingSecurityEventsLandInTheRequestSpan(t *testing.T) {
	tracingEnvClean(t)
	rcv := tracingtest.NewReceiver(t)
	iss := authntest.NewIssuer(t)
	r := chi.NewRouter()
	r.Get("/me", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("me")) })
	var tr *tracing.Tracing
	app := svctest.Start(t, fx.Supply(zap.NewNop(), r), fxsvc.Errors(), fxsvc.Authn(iss.Discover()),
		fxsvc.Tracing(tracing.WithConfig(tracing.Config{Export: tracing.Export{Endpoint: secret.URL(rcv.URL)}})), fxsvc.Serve(), fx.Populate(&tr))
	if resp := getWithTraceparent(t, app, "/me"); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d", resp.StatusCode)
	}
	tracingtest.Flush(t, tr)

	span, ok := rcv.Find("GET /me")
	if !ok {
		t.Fatalf("no server span named by the route: %+v", rcv.Spans())
	}
	if span.TraceID != proofTraceID || span.Kind != "SPAN_KIND_SERVER" || span.Attributes["svc.authentication.refusal"] == "" {
		t.Fatalf("span %+v", span)
	}
	var found bool
	for _, e := range span.Events {
		if e.Name == "svc.authentication.refused" && e.Attributes["http.response.status_code"] == "401" && e.Attributes["http.route"] == "/me" {
			found = true
		}
	}
	if !found {
		t.Fatalf("no svc.authentication.refused event in %+v", span.Events)
	}
}

// Tracing is one per app, and an exporter that is not linked fails fx.New
// naming the variable and the import.
func TestTracingRefusals(t *testing.T) {
	tracingEnvClean(t)
	err := fx.New(fx.NopLogger, fxsvc.Tracing(), fxsvc.Tracing()).Err()
	if err == nil || !strings.Contains(err.Error(), "onlyOneTracingPerApp") {
		t.Fatalf("two Tracing: %v", err)
	}
	t.Setenv("SVC_TRACING_EXPORTER", "console")
	var out, errOut bytes.Buffer
	if code := fxsvc.Run(nil, &out, &errOut, fxsvc.Tracing()); code != 1 ||
		!strings.Contains(errOut.String(), "SVC_TRACING_EXPORTER") ||
		!strings.Contains(errOut.String(), `import _ "github.com/svckit/svc/modules/tracing/console"`) {
		t.Fatalf("exit %d, stderr %s", code, errOut.String())
	}
	var buf bytes.Buffer
	if code := fxsvc.Run(nil, &out, &buf, fxsvc.Tracing(), fxsvc.Tracing()); code != 1 || !strings.Contains(buf.String(), "only one tracing may be registered") {
		t.Fatalf("exit %d, stderr %s", code, buf.String())
	}
}

// An inactive Tracing in an app installs nothing.
func TestTracingInactiveInApp(t *testing.T) {
	tracingEnvClean(t)
	before := otel.GetTracerProvider()
	var tr *tracing.Tracing
	svctest.Start(t, fx.Supply(zap.NewNop(), chi.NewRouter()), fxsvc.Tracing(), fxsvc.Serve(), fx.Populate(&tr))
	if tr.Exporter() != "none" || tr.Active() || otel.GetTracerProvider() != before {
		t.Fatal("an inactive Tracing installed a provider")
	}
}

// spanOnStart ends one span once the app started, so the stop has
// something to flush.
func spanOnStart() fx.Option {
	return fx.Invoke(func(lc fx.Lifecycle) {
		lc.Append(fx.StartHook(func(ctx context.Context) {
			_, span := otel.Tracer("svc.test").Start(ctx, "started")
			span.End()
		}))
	})
}

// The tracing flush counts in the stop budget: too large a flush fails
// start-up naming the variables; the defaults of drain, metrics and
// tracing fit the default budget, and a final tracing flush the collector
// refuses still exits 0.
func TestRunBudgetsTheTracingFlush(t *testing.T) {
	metricsEnvClean(t)
	tracingEnvClean(t)
	collector, _ := refusingCollector(t)
	rcv := tracingtest.NewReceiver(t)
	t.Setenv("SVC_METRICS_EXPORTER", "otlp-http")
	t.Setenv("SVC_METRICS_ENDPOINT", collector.URL)
	t.Setenv("SVC_TRACING_ENDPOINT", rcv.URL)
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
	run := func() (int, string) {
		var out, errOut bytes.Buffer
		code := fxsvc.Run(nil, &out, &errOut, fx.Supply(zap.NewNop(), chi.NewRouter()),
			fxsvc.Metrics(), fxsvc.Tracing(), fxsvc.Serve(), spanOnStart(), stopsItself())
		return code, errOut.String()
	}

	t.Setenv("SVC_TRACING_SHUTDOWN_TIMEOUT", "5")
	code, stderr := run()
	if code != 1 {
		t.Fatalf("exit %d with a 5 s tracing flush in a 15 s budget", code)
	}
	for _, w := range []string{"SVC_SHUTDOWN_TIMEOUT", "SVC_TRACING_SHUTDOWN_TIMEOUT, 5s", "SVC_METRICS_SHUTDOWN_TIMEOUT, 5s", "SVC_HTTP_DRAIN_TIMEOUT, 8s"} {
		if !strings.Contains(stderr, w) {
			t.Fatalf("stderr %q does not name %q", stderr, w)
		}
	}
	if len(rcv.Headers()) != 0 {
		t.Fatal("an app refused for its stop budget started anyway")
	}

	os.Unsetenv("SVC_TRACING_SHUTDOWN_TIMEOUT")
	rcv.Refuse(http.StatusServiceUnavailable, "try later")
	if code, stderr := run(); code != 0 || stderr != "" {
		t.Fatalf("defaults: exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	if len(rcv.Headers()) == 0 {
		t.Fatal("the final tracing flush never reached the collector")
	}
}
