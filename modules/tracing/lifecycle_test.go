package tracing_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/tracing"
	"github.com/svckit/svc/modules/tracing/tracingtest"
	"github.com/svckit/svc/secret"
)

const (
	incomingTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	incomingSpanID  = "00f067aa0ba902b7"
)

func traceparent(flags string) string {
	return "00-" + incomingTraceID + "-" + incomingSpanID + "-" + flags
}

// startFrom starts and ends a span named name from the global tracer, as a
// child of the trace context in header (if any), and returns its context.
func startFrom(header, name string) trace.SpanContext {
	ctx := context.Background()
	if header != "" {
		h := http.Header{"Traceparent": {header}}
		ctx = otel.GetTextMapPropagator().Extract(ctx, propagation.HeaderCarrier(h))
	}
	_, span := otel.Tracer("svc.test").Start(ctx, name)
	span.End()
	return span.SpanContext()
}

// The spans reach a real OTLP/HTTP receiver with the configured headers
// and Basic authorization, the resource naming the service, and the trace
// ID of an incoming traceparent.
func TestOTLPHTTPExportCarriesHeadersAndTraceContext(t *testing.T) {
	const pw = "hunter2-secret"
	clearEnv(t)
	rcv := tracingtest.NewReceiver(t)
	tr, err := tracing.New(tracing.WithConfig(tracing.Config{
		Export: tracing.Export{
			Endpoint:           secret.URL(rcv.URL),
			BasicAuthUsername:  "u",
			BasicAuthPassword:  secret.String(pw),
			Headers:            secretHeaders(map[string]string{"x-tenant": "acme"}),
			ServiceName:        "orders",
			ResourceAttributes: map[string]string{"deployment.environment": "test"},
		},
	}))
	if err != nil {
		t.Fatal(err)
	}
	open(t, tr)
	startFrom(traceparent("01"), "handle")
	tracingtest.Flush(t, tr)

	span, ok := rcv.Find("handle")
	if !ok {
		t.Fatalf("the receiver got no span named handle: %+v", rcv.Spans())
	}
	if span.TraceID != incomingTraceID || span.ParentSpanID != incomingSpanID {
		t.Fatalf("trace %s parent %s; want the incoming %s / %s", span.TraceID, span.ParentSpanID, incomingTraceID, incomingSpanID)
	}
	if span.Resource["service.name"] != "orders" || span.Resource["deployment.environment"] != "test" || span.Scope != "svc.test" {
		t.Fatalf("resource %v scope %q", span.Resource, span.Scope)
	}
	h := rcv.Headers()[0]
	if h.Get("Authorization") != "Basic "+base64.StdEncoding.EncodeToString([]byte("u:"+pw)) || h.Get("X-Tenant") != "acme" {
		t.Fatalf("export headers %v", h)
	}
	if h.Get("Content-Type") != "application/x-protobuf" {
		t.Fatalf("content type %q", h.Get("Content-Type"))
	}
}

// Credentials embedded in the endpoint travel as Basic authorization.
func TestEndpointCredentialsBecomeBasicAuthorization(t *testing.T) {
	clearEnv(t)
	rcv := tracingtest.NewReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", strings.Replace(rcv.URL, "http://", "http://u:p%40ss@", 1))
	tr, err := tracing.New()
	if err != nil {
		t.Fatal(err)
	}
	open(t, tr)
	startFrom("", "work")
	tracingtest.Flush(t, tr)
	if _, ok := rcv.Find("work"); !ok {
		t.Fatal("no span exported")
	}
	if got := rcv.Headers()[0].Get("Authorization"); got != "Basic "+base64.StdEncoding.EncodeToString([]byte("u:p@ss")) {
		t.Fatalf("authorization %q", got)
	}
}

// An unsampled incoming traceparent is honoured too: under the default
// parent-based sampler nothing is recorded or exported.
func TestUnsampledTraceparentIsNotExported(t *testing.T) {
	clearEnv(t)
	rcv := tracingtest.NewReceiver(t)
	tr, err := tracing.New(tracing.WithConfig(tracing.Config{Export: tracing.Export{Endpoint: secret.URL(rcv.URL)}}))
	if err != nil {
		t.Fatal(err)
	}
	open(t, tr)
	sc := startFrom(traceparent("00"), "dropped")
	startFrom("", "kept")
	tracingtest.Flush(t, tr)
	if sc.TraceID().String() != incomingTraceID || sc.IsSampled() {
		t.Fatalf("span context %v", sc)
	}
	if _, ok := rcv.Find("dropped"); ok {
		t.Fatal("an unsampled trace was exported")
	}
	if _, ok := rcv.Find("kept"); !ok {
		t.Fatal("a root span was not exported")
	}
}

// An inactive component installs nothing: the global provider and
// propagator stay what they were, and it has no provider to hand out.
func TestInactiveInstallsNothing(t *testing.T) {
	clearEnv(t)
	before, beforeTM := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	for name, opts := range map[string][]tracing.Option{
		"auto without endpoint": nil,
		"none with endpoint":    {tracing.WithConfig(tracing.Config{Exporter: "none", Export: tracing.Export{Endpoint: secret.URL("http://c:4318")}})},
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := tracing.New(opts...)
			if err != nil {
				t.Fatal(err)
			}
			if err := tr.Open(context.Background()); err != nil {
				t.Fatal(err)
			}
			if otel.GetTracerProvider() != before || otel.GetTextMapPropagator() != beforeTM {
				t.Fatal("an inactive component changed the global provider or propagator")
			}
			if _, err := tr.Provider(); !errors.Is(err, tracing.ErrInactive) {
				t.Fatalf("Provider() error %v, want ErrInactive", err)
			}
			if tr.Active() || tr.OwnsGlobalState() || tr.ShutdownTimeout() != 0 || tracing.Current() != nil {
				t.Fatal("an inactive component claims to be active")
			}
			if p, tm := tracing.SavedGlobal(); p != nil || tm != nil {
				t.Fatal("an inactive component remembers a previous provider")
			}
			if startFrom("", "nothing").IsSampled() {
				t.Fatal("a span was sampled with tracing inactive")
			}
			if err := tr.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Open installs the provider and the W3C propagator; Close restores what
// it found, identical.
func TestCloseRestoresThePreviousProviderAndPropagator(t *testing.T) {
	clearEnv(t)
	origTP, origTM := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	t.Cleanup(func() { otel.SetTracerProvider(origTP); otel.SetTextMapPropagator(origTM) })
	theirs := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = theirs.Shutdown(context.Background()) })
	theirTM := propagation.Baggage{}
	otel.SetTracerProvider(theirs)
	otel.SetTextMapPropagator(theirTM)

	tr, err := tracing.New(tracing.WithConfig(tracing.Config{Exporter: "console"}), tracing.WithConsoleWriter(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Provider(); !errors.Is(err, tracing.ErrNotStarted) {
		t.Fatalf("Provider() before Open: %v", err)
	}
	if err := tr.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := tr.Open(context.Background()); err == nil || !strings.Contains(err.Error(), "already opened") {
		t.Fatalf("second Open: %v", err)
	}
	if otel.GetTracerProvider() == trace.TracerProvider(theirs) || !tr.OwnsGlobalState() || tracing.Current() != tr {
		t.Fatal("Open did not install the component")
	}
	if p, _ := tr.Provider(); tracing.GlobalProvider() != p {
		t.Fatal("GlobalProvider is not the component's")
	}
	carrier := propagation.MapCarrier{}
	ctx, span := otel.Tracer("svc.test").Start(context.Background(), "out")
	otel.GetTextMapPropagator().Inject(ctx, carrier)
	span.End()
	if want := "00-" + span.SpanContext().TraceID().String() + "-" + span.SpanContext().SpanID().String() + "-01"; carrier.Get("traceparent") != want {
		t.Fatalf("injected traceparent %q, want %q", carrier.Get("traceparent"), want)
	}
	if p, tm := tracing.SavedGlobal(); p != trace.TracerProvider(theirs) || tm != propagation.TextMapPropagator(theirTM) {
		t.Fatal("the global state saved is not what Open found")
	}
	if err := tr.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if otel.GetTracerProvider() != trace.TracerProvider(theirs) || otel.GetTextMapPropagator() != propagation.TextMapPropagator(theirTM) {
		t.Fatal("Close did not restore the previous provider and propagator")
	}
	if tr.Active() || tr.OwnsGlobalState() || tracing.Current() != nil {
		t.Fatal("a closed component still claims the global state")
	}
	if err := tr.Close(context.Background()); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// A tracer taken from the global before any component opened follows
// every component opened later, one after the other and nested, and
// records nothing in between (OpenTelemetry binds its global delegate only
// once per process).
func TestEarlyTracerFollowsEveryComponent(t *testing.T) {
	clearEnv(t)
	early := otel.Tracer("svc.early")
	newConsole := func(buf *bytes.Buffer) *tracing.Tracing {
		tr, err := tracing.New(tracing.WithConfig(tracing.Config{Exporter: "console"}), tracing.WithConsoleWriter(buf))
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Open(context.Background()); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	span := func(name string) bool {
		_, s := early.Start(context.Background(), name)
		s.End()
		return s.IsRecording()
	}
	var bufA, bufB bytes.Buffer
	a := newConsole(&bufA)
	span("in-a")
	b := newConsole(&bufB)
	span("in-b-nested")
	if err := b.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	span("in-a-again")
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if span("in-none") {
		t.Fatal("a span recorded with no component open")
	}
	var bufC bytes.Buffer
	c := newConsole(&bufC)
	span("in-c")
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		buf       *bytes.Buffer
		want, not []string
	}{
		{&bufA, []string{`"Name":"in-a"`, `"Name":"in-a-again"`}, []string{"in-b-nested", "in-c", "in-none"}},
		{&bufB, []string{`"Name":"in-b-nested"`}, []string{`"Name":"in-a"`, "in-c"}},
		{&bufC, []string{`"Name":"in-c"`}, []string{"in-a", "in-b", "in-none"}},
	} {
		out := tc.buf.String()
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Fatalf("console output lacks %s:\n%s", w, out)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(out, n) {
				t.Fatalf("console output holds %s:\n%s", n, out)
			}
		}
	}
}

// A collector that never answers: Close gives up at shutdown_timeout with
// one warning, and the stop succeeds.
func TestShutdownFlushIsBounded(t *testing.T) {
	clearEnv(t)
	rcv := tracingtest.NewReceiver(t)
	rcv.Hang()
	handled := &recordingHandler{}
	prev := otel.GetErrorHandler()
	otel.SetErrorHandler(handled)
	t.Cleanup(func() { otel.SetErrorHandler(prev) })
	core, logs := observer.New(zap.WarnLevel)
	tr, err := tracing.New(tracing.WithConfig(tracing.Config{
		Export: tracing.Export{
			Endpoint:        secret.URL(rcv.URL),
			ShutdownTimeout: 100 * time.Millisecond,
		},
	}),
		tracing.WithLogger(zap.New(core)))
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	startFrom("", "pending")
	if err := tr.Close(context.Background()); err != nil {
		t.Fatalf("Close failed the stop: %v", err)
	}
	if logs.FilterMessageSnippet("tracing flush abandoned").Len() != 1 {
		t.Fatalf("logs %v", logs.All())
	}
	if w := logs.All()[0].ContextMap(); w["shutdown_timeout"] != 100*time.Millisecond || w["exporter"] != "otlp-http" {
		t.Fatalf("warning fields %v", w)
	}
	if n := handled.count(); n != 0 {
		t.Fatalf("the abandoned flush also went to OpenTelemetry's error handler (%d times)", n)
	}
}

// A collector refusing the final flush, echoing the credentials back:
// Close logs one warning holding no secret, hands OpenTelemetry's error
// handler nothing, and the stop succeeds.
func TestFinalFlushRefusedIsAWarningWithoutSecrets(t *testing.T) {
	const pw = "hunter2-secret"
	clearEnv(t)
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("u:"+pw))
	rcv := tracingtest.NewReceiver(t)
	rcv.Refuse(http.StatusUnauthorized, "bad credentials "+auth+" / "+pw)
	handled := &recordingHandler{}
	prev := otel.GetErrorHandler()
	otel.SetErrorHandler(handled)
	t.Cleanup(func() { otel.SetErrorHandler(prev) })
	core, logs := observer.New(zap.WarnLevel)
	tr, err := tracing.New(tracing.WithConfig(tracing.Config{
		Export: tracing.Export{
			Endpoint:          secret.URL(rcv.URL),
			BasicAuthUsername: "u",
			BasicAuthPassword: secret.String(pw),
		},
	}), tracing.WithLogger(zap.New(core)))
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	startFrom("", "refused")
	if err := tr.Close(context.Background()); err != nil {
		t.Fatalf("Close failed the stop: %v", err)
	}
	if len(rcv.Headers()) == 0 {
		t.Fatal("the final flush never reached the collector")
	}
	if logs.FilterMessageSnippet("tracing flush failed").Len() != 1 {
		t.Fatalf("logs %v", logs.All())
	}
	for _, e := range logs.All() {
		for k, v := range e.ContextMap() {
			if s := toString(v); strings.Contains(s, pw) || strings.Contains(s, auth[len("Basic "):]) {
				t.Fatalf("log field %s leaks a secret: %v", k, v)
			}
		}
	}
	if n := handled.count(); n != 0 {
		t.Fatalf("the final flush's failure also went to OpenTelemetry's error handler (%d times)", n)
	}
}
