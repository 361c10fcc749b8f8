package telemetry

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/svckit/svc/internal/otelglobal"
)

// durationBuckets are the bucket bounds the OpenTelemetry semantic
// conventions advise for http.server.request.duration, in seconds.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// httpMetrics are the HTTP server instruments on one meter provider.
type httpMetrics struct {
	duration metric.Float64Histogram
	active   metric.Int64UpDownCounter
	// Attribute sets are built once per distinct value: building one sorts
	// and hashes on every request. Methods are a fixed set, routes the
	// router's templates (an unknown URL has none), statuses three digits:
	// the caches stay small.
	durationOpts sync.Map // durationKey -> []metric.RecordOption
	activeOpts   sync.Map // activeKey -> []metric.AddOption
}

type durationKey struct {
	method, scheme, route string
	status                int
}

type activeKey struct{ method, scheme string }

// metrics are the HTTP server metrics on the global meter provider
// (otelglobal), nil while none is installed: an app without metrics pays
// nothing for them.
func (t *Telemetry) metrics() *httpMetrics {
	if !otelglobal.MetersInstalled() {
		return nil
	}
	return t.meters.Get(func(mp metric.MeterProvider, _ *httpMetrics) *httpMetrics { return newHTTPMetrics(mp) })
}

func newHTTPMetrics(mp metric.MeterProvider) *httpMetrics {
	meter := mp.Meter(scope)
	m := &httpMetrics{}
	// An instrument the provider refuses comes back as a no-op with the
	// error, which the provider also reports to otel's error handler.
	m.duration, _ = meter.Float64Histogram("http.server.request.duration",
		metric.WithDescription("Duration of HTTP server requests."), metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	m.active, _ = meter.Int64UpDownCounter("http.server.active_requests",
		metric.WithDescription("Number of active HTTP server requests."), metric.WithUnit("{request}"))
	return m
}

func (m *httpMetrics) enter(ctx context.Context, method string, r *http.Request) {
	m.active.Add(ctx, 1, m.activeOpt(method, scheme(r))...)
}

// leave ends the request's measurements. ctx carries its span, for
// exemplars; a cancelled one still records.
func (m *httpMetrics) leave(ctx context.Context, r *http.Request, method, route string, found bool, status int, elapsed time.Duration) {
	s := scheme(r)
	m.active.Add(ctx, -1, m.activeOpt(method, s)...)
	if !found {
		route = ""
	}
	m.duration.Record(ctx, elapsed.Seconds(), m.durationOpt(durationKey{method, s, route, status})...)
}

func (m *httpMetrics) activeOpt(method, scheme string) []metric.AddOption {
	key := activeKey{method, scheme}
	if v, ok := m.activeOpts.Load(key); ok {
		return v.([]metric.AddOption)
	}
	opts := []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(
		attribute.String("http.request.method", method), attribute.String("url.scheme", scheme)))}
	m.activeOpts.Store(key, opts)
	return opts
}

func (m *httpMetrics) durationOpt(key durationKey) []metric.RecordOption {
	if v, ok := m.durationOpts.Load(key); ok {
		return v.([]metric.RecordOption)
	}
	attrs := []attribute.KeyValue{
		attribute.String("http.request.method", key.method),
		attribute.String("url.scheme", key.scheme),
		attribute.Int("http.response.status_code", key.status),
	}
	if key.route != "" {
		attrs = append(attrs, attribute.String("http.route", key.route))
	}
	if key.status >= 500 {
		// The semantic conventions' error.type for a server error without
		// a better name: the status code.
		attrs = append(attrs, attribute.String("error.type", strconv.Itoa(key.status)))
	}
	opts := []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attrs...))}
	m.durationOpts.Store(key, opts)
	return opts
}
