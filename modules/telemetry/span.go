package telemetry

import (
	"context"
	"net/http"
	"reflect"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/svckit/svc/internal/otelglobal"
	"github.com/svckit/svc/modules/requestid"
)

// traceContext reads the caller's W3C traceparent and tracestate, whatever
// global propagator the app set: the server span continues the caller's
// trace.
var traceContext = propagation.TraceContext{}

type tracerSlot struct {
	tp     trace.TracerProvider
	tracer trace.Tracer
}

// tracer is the tracer server spans start on, of the global provider
// (otelglobal), nil when tracing is off: until a provider is installed
// (otel's delegate starts only non-recording spans), the wrapper starts no
// span at all.
func (t *Telemetry) tracer() trace.Tracer {
	if !otelglobal.TracesInstalled() {
		return nil
	}
	tp := otel.GetTracerProvider()
	if _, off := tp.(noop.TracerProvider); off {
		return nil
	}
	if s := t.tracers.Load(); s != nil && s.tp == tp {
		// Safe: only comparable providers are cached, so == cannot panic.
		return s.tracer
	}
	tracer := tp.Tracer(scope)
	if reflect.TypeOf(tp).Comparable() {
		t.tracers.Store(&tracerSlot{tp: tp, tracer: tracer})
	}
	return tracer
}

func startSpan(ctx context.Context, tracer trace.Tracer, r *http.Request, method, id, client string) (context.Context, trace.Span) {
	ctx = traceContext.Extract(ctx, propagation.HeaderCarrier(r.Header))
	attrs := make([]attribute.KeyValue, 0, 5)
	attrs = append(attrs,
		attribute.String("http.request.method", method),
		attribute.String("url.scheme", scheme(r)),
		attribute.String("url.path", r.URL.Path),
		attribute.String("client.address", client),
	)
	if method == otherMethod {
		// The semantic conventions keep the method as sent beside _OTHER.
		attrs = append(attrs, attribute.String("http.request.method_original", r.Method))
	}
	if id != "" {
		attrs = append(attrs, attribute.String(requestid.LogField, id))
	}
	// Named by method alone until the route is known: the gate finds it
	// inside, the name is completed when the request ends.
	return tracer.Start(ctx, spanMethod(method), trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
}

// spanMethod is the method part of a span name: "HTTP" for a method the
// conventions do not know (_OTHER), which is no method at all.
func spanMethod(method string) string {
	if method == otherMethod {
		return "HTTP"
	}
	return method
}

func endSpan(span trace.Span, method, route string, found bool, status int, size int64) {
	if span.IsRecording() {
		if found {
			span.SetName(spanMethod(method) + " " + route)
			span.SetAttributes(attribute.String("http.route", route))
		}
		span.SetAttributes(
			attribute.Int("http.response.status_code", status),
			attribute.Int64("http.response.body.size", size),
		)
		if status >= 500 {
			// A 4xx is the caller's error, not the server's: the span
			// stays unset (semantic conventions, server spans).
			span.SetStatus(codes.Error, "")
			span.SetAttributes(attribute.String("error.type", statusText(status)))
		}
	}
	span.End()
}
