package telemetry_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/requestid"
	"github.com/svckit/svc/modules/telemetry"
)

const (
	callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "00f067aa0ba902b7"
)

func tracing(t *testing.T) (*tracetest.SpanRecorder, telemetry.Option) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	installTracers(t, tp)
	return sr, nil
}

// installTracers makes tp the global tracer provider, the one the wrapper
// reads, until the test ends.
func installTracers(t *testing.T, tp trace.TracerProvider) {
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
}

// installMeters makes mp the global meter provider until the test ends.
func installMeters(t *testing.T, mp metric.MeterProvider) {
	prev := otel.GetMeterProvider()
	otel.SetMeterProvider(mp)
	t.Cleanup(func() { otel.SetMeterProvider(prev) })
}

func spanAttrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		out[kv.Key] = kv.Value
	}
	return out
}

func TestServerSpanNamedByRouteContinuesTheCallersTrace(t *testing.T) {
	sr, opt := tracing(t)
	h, logs := stack(t, []telemetry.Option{opt}, authn.EndUser(true))
	r := httptest.NewRequest(http.MethodGet, "/orders/42", nil)
	r.Header = bearerHeader("alice-token")
	r.Header.Set("traceparent", "00-"+callerTrace+"-"+callerSpan+"-01")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)

	spans := sr.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	s := spans[0]
	if s.Name() != "GET /orders/{id}" || s.SpanKind() != trace.SpanKindServer {
		t.Errorf("span %q kind %v", s.Name(), s.SpanKind())
	}
	if s.SpanContext().TraceID().String() != callerTrace || s.Parent().SpanID().String() != callerSpan || !s.Parent().IsRemote() {
		t.Errorf("trace %s parent %s: the caller's traceparent was not continued", s.SpanContext().TraceID(), s.Parent().SpanID())
	}
	a := spanAttrs(s)
	for k, v := range map[attribute.Key]string{
		"http.route":          "/orders/{id}",
		"http.request.method": "GET",
		"enduser.id":          "alice",
		requestid.LogField:    w.Header().Get(requestid.Header),
	} {
		if a[k].AsString() != v {
			t.Errorf("%s = %q, want %q", k, a[k].AsString(), v)
		}
	}
	if a["http.response.status_code"].AsInt64() != 200 || s.Status().Code != codes.Unset {
		t.Errorf("status %v, span status %v", a["http.response.status_code"], s.Status())
	}
	f := fieldsOf(only(t, logs, telemetry.AccessLogger))
	if f["trace_id"] != callerTrace || f["span_id"] != s.SpanContext().SpanID().String() {
		t.Errorf("access record trace_id %v span_id %v", f["trace_id"], f["span_id"])
	}
}

// The gate's security events land on the wrapper's span: it is in the
// context the gate sees.
func TestGateRefusalLandsOnTheServerSpan(t *testing.T) {
	sr, opt := tracing(t)
	h, logs := stack(t, []telemetry.Option{opt})
	r := httptest.NewRequest(http.MethodGet, "/orders/42", nil)
	r.Header = bearerHeader("forged-token")
	h.ServeHTTP(httptest.NewRecorder(), r)
	s := sr.Ended()[0]
	var events []string
	for _, e := range s.Events() {
		events = append(events, e.Name)
	}
	if len(events) != 1 || events[0] != "svc.authentication.refused" {
		t.Errorf("span events %v", events)
	}
	if s.Name() != "GET /orders/{id}" || spanAttrs(s)["http.response.status_code"].AsInt64() != 401 {
		t.Errorf("span %q %v", s.Name(), spanAttrs(s))
	}
	// A 4xx is the caller's error: a server span's status stays unset and
	// carries no error.type (HTTP semantic conventions).
	if _, has := spanAttrs(s)["error.type"]; has || s.Status().Code != codes.Unset {
		t.Errorf("a 401's span: status %v error.type %v, want unset and none", s.Status(), spanAttrs(s)["error.type"])
	}
	rec := fieldsOf(only(t, logs, "svc.security.events"))
	if rec["trace_id"] != s.SpanContext().TraceID().String() {
		t.Errorf("security record trace_id %v, span's %s", rec["trace_id"], s.SpanContext().TraceID())
	}
}

func TestServerErrorMarksTheSpan(t *testing.T) {
	sr, opt := tracing(t)
	h, _ := stack(t, []telemetry.Option{opt})
	r := httptest.NewRequest(http.MethodGet, "/fail", nil)
	r.Header = bearerHeader("alice-token")
	h.ServeHTTP(httptest.NewRecorder(), r)
	s := sr.Ended()[0]
	if s.Status().Code != codes.Error || spanAttrs(s)["error.type"].AsString() != "500" {
		t.Fatalf("a 500's span: status %v error.type %v", s.Status(), spanAttrs(s)["error.type"])
	}
}

func TestUnknownURLSpanIsNamedByMethodAlone(t *testing.T) {
	sr, opt := tracing(t)
	h, _ := stack(t, []telemetry.Option{opt})
	r := httptest.NewRequest(http.MethodGet, "/nope/secret", nil)
	r.Header = bearerHeader("alice-token")
	h.ServeHTTP(httptest.NewRecorder(), r)
	s := sr.Ended()[0]
	if _, has := spanAttrs(s)["http.route"]; has || s.Name() != "GET" {
		t.Fatalf("span %q attrs %v", s.Name(), spanAttrs(s))
	}
}

// A method the conventions do not know is _OTHER; its span is named HTTP
// (with the route when found), never "_OTHER", and keeps the method as sent
// in http.request.method_original.
func TestUnknownMethodSpanIsNamedHTTP(t *testing.T) {
	sr, opt := tracing(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/pot/{id}", func(http.ResponseWriter, *http.Request) {}) // every method
	h := newTelemetry(t, opt, telemetry.Router(mux)).Handler(mux)
	for path, want := range map[string]string{"/pot/7": "HTTP /pot/{id}", "/nope": "HTTP"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("BREW", path, nil))
		spans := sr.Ended()
		s := spans[len(spans)-1]
		a := spanAttrs(s)
		if s.Name() != want || a["http.request.method"].AsString() != "_OTHER" || a["http.request.method_original"].AsString() != "BREW" {
			t.Errorf("%s: span %q attrs %v, want %q, _OTHER and method_original BREW", path, s.Name(), a, want)
		}
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/pot/7", nil))
	spans := sr.Ended()
	if s := spans[len(spans)-1]; s.Name() != "GET /pot/{id}" {
		t.Errorf("GET span %q", s.Name())
	} else if _, has := spanAttrs(s)["http.request.method_original"]; has {
		t.Error("a known method got http.request.method_original")
	}
}

// Without a tracer provider installed anywhere, no span is started: the
// handler sees no span context and the gate no recording span.
func TestNoSpanWithoutATracerProvider(t *testing.T) {
	var sc trace.SpanContext
	h := newTelemetry(t, telemetry.AccessLog(nil)).Handler(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		sc = trace.SpanContextFromContext(r.Context())
	}))
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("traceparent", "00-"+callerTrace+"-"+callerSpan+"-01")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if sc.IsValid() {
		t.Fatalf("span context %v without tracing", sc)
	}
}

// uncomparable is a provider whose value cannot be compared with ==.
type uncomparable struct {
	trace.TracerProvider
	_ []string // a slice field makes the type uncomparable
}

// A provider of an uncomparable type is used, not cached (caching would
// compare it and panic).
func TestUncomparableTracerProvider(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	defer func() { _ = tp.Shutdown(t.Context()) }()
	installTracers(t, uncomparable{TracerProvider: tp})
	h := newTelemetry(t).Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for range 2 {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	}
	if n := len(sr.Ended()); n != 2 {
		t.Fatalf("%d spans, want 2", n)
	}
}
