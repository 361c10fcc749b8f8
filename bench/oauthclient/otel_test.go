package oauthclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"golang.org/x/oauth2"

	"github.com/svckit/svc/bench/internal/pair"
)

// withSDK installs the OpenTelemetry SDK as the process's globals, as the
// tracing and metrics components do: every span sampled (and dropped when
// it ends), the HTTP client metrics into a manual reader, W3C trace
// context and baggage. The globals as they were come back when the
// benchmark ends, so the package's other benchmarks keep running
// uninstrumented (a pattern's transport reads the globals per request).
func withSDK(b *testing.B) {
	tp0, mp0, pr0 := otel.GetTracerProvider(), otel.GetMeterProvider(), otel.GetTextMapPropagator()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(discardSpans{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	b.Cleanup(func() {
		otel.SetTracerProvider(tp0)
		otel.SetMeterProvider(mp0)
		otel.SetTextMapPropagator(pr0)
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
}

// discardSpans drops every span when it ends (an exporter's cost is not
// what is measured).
type discardSpans struct{}

func (discardSpans) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (discardSpans) OnEnd(sdktrace.ReadOnlySpan)                     {}
func (discardSpans) Shutdown(context.Context) error                  { return nil }
func (discardSpans) ForceFlush(context.Context) error                { return nil }

// BenchmarkOutboundTelemetryPaired: a GET on loopback with the
// OpenTelemetry SDK installed (a client span, the HTTP client metrics,
// the W3C headers), alternated in one loop, each side on its own
// http.Transport:
//   - peer: what an app writes without svc, otelhttp's client transport
//     (same SDK, through the globals) around x/oauth2's token transport.
//     Goal svc/peer ≤ 1.0.
//   - floor: otelhttp's client transport around a bare http.Transport,
//     the request's Authorization already set: telemetry with no token
//     work at all, for what svc's token transport costs beside it.
//
// The API answers 401 to a request without a token or a traceparent, so
// each side is checked to send both.
//
//	cd bench && go test -run '^$' -bench OutboundTelemetryPaired -count 6 ./oauthclient
func BenchmarkOutboundTelemetryPaired(b *testing.B) {
	srv := tokenServer(b)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" || r.Header.Get("Traceparent") == "" {
			w.WriteHeader(401)
		}
	}))
	b.Cleanup(api.Close)
	svcBase, peerBase := &http.Transport{}, &http.Transport{}
	b.Cleanup(svcBase.CloseIdleConnections)
	b.Cleanup(peerBase.CloseIdleConnections)
	// Built before the SDK is installed, as an app's client usually is:
	// its instrumentation reaches the SDK through OpenTelemetry's global
	// delegates, the peer's (built after) directly.
	svc := svcPattern(b, srv).Transport(svcBase)
	withSDK(b)
	req, _ := http.NewRequest(http.MethodGet, api.URL+"/orders", nil)
	req.Header.Set("Accept", "application/json")
	b.Run("peer", func(b *testing.B) {
		peer := otelhttp.NewTransport(&oauth2.Transport{Source: xSource(b, srv), Base: peerBase})
		roundTrip(b, svc, req)
		roundTrip(b, peer, req)
		s, p := pair.Paired(b, 16, func() { roundTrip(b, svc, req) }, func() { roundTrip(b, peer, req) })
		pair.Report(b, "svc", "peer", s, p)
	})
	b.Run("floor", func(b *testing.B) {
		floor := otelhttp.NewTransport(peerBase)
		floorReq := req.Clone(context.Background())
		floorReq.Header.Set("Authorization", "Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJzdmMifQ.token-1")
		roundTrip(b, svc, req)
		roundTrip(b, floor, floorReq)
		s, f := pair.Paired(b, 16, func() { roundTrip(b, svc, req) }, func() { roundTrip(b, floor, floorReq) })
		pair.Report(b, "svc", "floor", s, f)
	})
}
