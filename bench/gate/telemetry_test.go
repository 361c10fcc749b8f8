package gate_test

// Request telemetry around the gate, paired (bench/internal/pair):
//
//   - all-on: svc's telemetry wrapper (request ID, access log, HTTP server
//     metrics, server span) around the gate, against otelhttp v0.72 around
//     the same gate with a zap access-log middleware and the same request
//     ID doing the same work (the route named on the span, the metrics and
//     the record). Goal svc/peer ≤ 1.0.
//   - all-off: the wrapper with every part off around the gate, against
//     the gate alone. Goal ≤ 1.02.
//   - ids-only: what fxsvc.Serve adds when metrics, tracing and the access
//     log are off (request IDs stay on), against the gate alone. Goal
//     ≤ 1.1 (#24 item 18; see bench/README.md for where it stands).
//
//	cd bench && go test -run '^$' -bench 'TelemetryPaired' -benchmem -count 5 ./gate

import (
	"context"
	"crypto"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/bench/internal/pair"
	"github.com/svckit/svc/internal/reqid"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/requestid"
	"github.com/svckit/svc/modules/telemetry"
)

// discardSpans ends spans into nothing: both sides pay for recording a
// span, neither for exporting it.
type discardSpans struct{}

func (discardSpans) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (discardSpans) OnEnd(sdktrace.ReadOnlySpan)                     {}
func (discardSpans) Shutdown(context.Context) error                  { return nil }
func (discardSpans) ForceFlush(context.Context) error                { return nil }

// observability is one side's providers and logger: a sampled tracer, a
// meter with a manual reader, a JSON logger writing to io.Discard.
type observability struct {
	tp  *sdktrace.TracerProvider
	mp  *sdkmetric.MeterProvider
	log *zap.Logger
}

func newObservability(tb testing.TB) observability {
	o := observability{
		tp: sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(discardSpans{})),
		mp: sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())),
		log: zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()),
			zapcore.AddSync(io.Discard), zapcore.InfoLevel)),
	}
	tb.Cleanup(func() {
		_ = o.tp.Shutdown(context.Background())
		_ = o.mp.Shutdown(context.Background())
	})
	return o
}

// install makes o's providers the global ones, where svc's wrapper (and
// every svc component) reports, until the benchmark ends.
func (o observability) install(tb testing.TB) {
	tp, mp := otel.GetTracerProvider(), otel.GetMeterProvider()
	otel.SetTracerProvider(o.tp)
	otel.SetMeterProvider(o.mp)
	tb.Cleanup(func() {
		otel.SetTracerProvider(tp)
		otel.SetMeterProvider(mp)
	})
}

// svcTelemetry is the gate inside svc's wrapper.
func svcTelemetry(tb testing.TB, k *keys, opts ...telemetry.Option) http.Handler {
	t, err := telemetry.New(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return t.Handler(svcGate()(tb, k))
}

// peerTelemetry is the usual chi stack: otelhttp outermost, the request ID,
// the same gate, and inside the router a zap access-log middleware that
// names the route (on the span, in otelhttp's metric labels and in the
// record) once chi has routed.
func peerTelemetry(tb testing.TB, k *keys, o observability) http.Handler {
	r := chi.NewRouter()
	r.Use(zapAccessLog(o.log.Named("access")))
	r.Get("/me", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, meBody)
	})
	gated := svcGateAround(tb, k, r)
	return otelhttp.NewHandler(peerRequestID(gated), "server",
		otelhttp.WithTracerProvider(o.tp), otelhttp.WithMeterProvider(o.mp),
		otelhttp.WithPropagators(propagation.TraceContext{}))
}

type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

func zapAccessLog(log *zap.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			sw := &statusWriter{ResponseWriter: w}
			next.ServeHTTP(sw, r)
			route := chi.RouteContext(r.Context()).RoutePattern()
			span := trace.SpanFromContext(r.Context())
			span.SetName(r.Method + " " + route)
			span.SetAttributes(attribute.String("http.route", route))
			if l, ok := otelhttp.LabelerFromContext(r.Context()); ok {
				l.Add(attribute.String("http.route", route))
			}
			sc := span.SpanContext()
			log.Info(r.Method+" "+route,
				zap.String("http.request.method", r.Method),
				zap.String("http.route", route),
				zap.Int("http.response.status_code", sw.status),
				zap.Int("http.response.body.size", sw.bytes),
				zap.Int64("event.duration", time.Since(start).Nanoseconds()),
				zap.String("client.address", r.RemoteAddr),
				zap.String("http.request.id", requestid.From(r.Context())),
				zap.String("trace_id", sc.TraceID().String()),
				zap.String("span_id", sc.SpanID().String()),
			)
		})
	}
}

func BenchmarkTelemetryPaired(b *testing.B) {
	k := theKeys(b)
	run := func(h http.Handler, r *http.Request) func() {
		w := newDiscardWriter()
		return func() {
			w.reset()
			h.ServeHTTP(w, r)
			if w.status != http.StatusOK {
				b.Fatalf("status %d", w.status)
			}
		}
	}

	b.Run("all-on", func(b *testing.B) {
		so, po := newObservability(b), newObservability(b)
		so.install(b)
		hs := svcTelemetry(b, k, telemetry.AccessLog(so.log))
		hp := peerTelemetry(b, k, po)
		svc, peer := pair.Paired(b, 16, run(hs, request(k.one.auth)), run(hp, request(k.one.auth)))
		pair.Report(b, "svc", "peer", svc, peer)
	})

	b.Run("all-off", func(b *testing.B) {
		hs := svcTelemetry(b, k, telemetry.RequestIDs(false))
		hg := svcGate()(b, k)
		svc, gate := pair.Paired(b, 64, run(hs, request(k.one.auth)), run(hg, request(k.one.auth)))
		pair.Report(b, "off", "gate", svc, gate)
	})

	b.Run("ids-only", func(b *testing.B) {
		hs := svcTelemetry(b, k)
		hg := svcGate()(b, k)
		svc, gate := pair.Paired(b, 64, run(hs, request(k.one.auth)), run(hg, request(k.one.auth)))
		pair.Report(b, "ids", "gate", svc, gate)
	})

	// The same stack on a router of authn.NewChiRouter (which checks
	// registrations) and on chi.NewRouter: it is served as the chi router
	// it wraps, so the goal is 1.00.
	b.Run("NewChiRouter", func(b *testing.B) {
		t, err := telemetry.New()
		if err != nil {
			b.Fatal(err)
		}
		r := authn.NewChiRouter()
		r.Get("/me", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, meBody)
		})
		hn := t.Handler(svcGateAround(b, k, r))
		hc := svcTelemetry(b, k)
		checkedRouter, chiRouter := pair.Paired(b, 64, run(hn, request(k.one.auth)), run(hc, request(k.one.auth)))
		pair.Report(b, "checked", "chi", checkedRouter, chiRouter)
	})
}

// TestTelemetryContendersAnswer runs the benchmark's stacks once in plain
// `go test`: both admit the token, and both record a span.
func TestTelemetryContendersAnswer(t *testing.T) {
	k := theKeys(t)
	so, po := newObservability(t), newObservability(t)
	so.install(t)
	for name, h := range map[string]http.Handler{
		"svc":  svcTelemetry(t, k, telemetry.AccessLog(so.log)),
		"peer": peerTelemetry(t, k, po),
	} {
		w := newDiscardWriter()
		h.ServeHTTP(w, request(k.one.auth))
		if w.status != http.StatusOK || !reqid.Valid(w.Header().Get(requestid.Header)) {
			t.Fatalf("%s: %d, X-Request-ID %q", name, w.status, w.Header().Get(requestid.Header))
		}
	}
}

// svcGateAround is svcGate in front of another router.
func svcGateAround(tb testing.TB, k *keys, router http.Handler) http.Handler {
	tb.Helper()
	v := bearer.KeySet(issuer, audience, []crypto.PublicKey{&k.key.PublicKey})
	if err := v.Open(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = v.Close(context.Background()) })
	g, err := authn.New(v)
	if err != nil {
		tb.Fatal(err)
	}
	h, err := g.Handler(router)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// BenchmarkTelemetry runs each stack alone, for its allocations per
// request (the paired loop reports both sides' together).
func BenchmarkTelemetry(b *testing.B) {
	k := theKeys(b)
	b.Run("svc-all-on", func(b *testing.B) {
		o := newObservability(b)
		o.install(b)
		serve(b, svcTelemetry(b, k, telemetry.AccessLog(o.log)),
			request(k.one.auth), http.StatusOK)
	})
	b.Run("otelhttp-zap", func(b *testing.B) {
		serve(b, peerTelemetry(b, k, newObservability(b)), request(k.one.auth), http.StatusOK)
	})
	b.Run("svc-all-off", func(b *testing.B) {
		serve(b, svcTelemetry(b, k, telemetry.RequestIDs(false)), request(k.one.auth), http.StatusOK)
	})
	b.Run("svc-ids-only", func(b *testing.B) {
		serve(b, svcTelemetry(b, k), request(k.one.auth), http.StatusOK)
	})
	b.Run("gate", func(b *testing.B) {
		serve(b, svcGate()(b, k), request(k.one.auth), http.StatusOK)
	})
}

// peerRequestID is the request-ID middleware a chi app writes for itself:
// the caller's well-formed X-Request-ID, else a new one, echoed and in the
// context.
func peerRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(requestid.Header)
		if !reqid.Valid(id) {
			id = reqid.New()
		}
		w.Header().Set(requestid.Header, id)
		next.ServeHTTP(w, r.WithContext(reqid.With(r.Context(), id)))
	})
}
