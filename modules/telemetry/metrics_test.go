package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/svckit/svc/modules/telemetry"
)

func collect(t *testing.T, reader sdkmetric.Reader) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != telemetry.Scope {
			continue
		}
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

func attrMap(s attribute.Set) map[string]string {
	out := map[string]string{}
	for _, kv := range s.ToSlice() {
		out[string(kv.Key)] = kv.Value.String()
	}
	return out
}

func TestHTTPServerMetricsFollowTheSemanticConventions(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(context.Background()) }()
	installMeters(t, mp)
	h, _ := stack(t, nil)
	send := func(path, token string) {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if token != "" {
			r.Header = bearerHeader(token)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	send("/orders/1", "alice-token")
	send("/orders/2", "alice-token")
	send("/orders/3", "")
	send("/fail", "alice-token")
	// Unknown URLs, with and without a token, share one series: no route.
	send("/nope/1", "alice-token")
	send("/nope/2", "alice-token")
	send("/nope/3", "")

	got := collect(t, reader)
	dur, ok := got["http.server.request.duration"]
	if !ok || dur.Unit != "s" {
		t.Fatalf("http.server.request.duration missing or not in seconds: %+v", got)
	}
	hist := dur.Data.(metricdata.Histogram[float64])
	counts := map[string]uint64{}
	for _, dp := range hist.DataPoints {
		a := attrMap(dp.Attributes)
		key := a["http.request.method"] + " " + a["http.route"] + " " + a["http.response.status_code"] + " " + a["error.type"]
		if a["url.scheme"] != "http" {
			t.Errorf("url.scheme %q", a["url.scheme"])
		}
		counts[key] += dp.Count
	}
	want := map[string]uint64{
		"GET /orders/{id} 200 ": 2,
		"GET /orders/{id} 401 ": 1,
		"GET /fail 500 500":     1,
		"GET  404 ":             2, // no http.route attribute at all
		"GET  401 ":             1,
	}
	if len(counts) != len(want) {
		t.Errorf("series %v, want %v", counts, want)
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%q: %d, want %d (all: %v)", k, counts[k], n, counts)
		}
	}
	for _, dp := range hist.DataPoints {
		if _, has := dp.Attributes.Value("http.route"); has && attrMap(dp.Attributes)["http.route"] == "" {
			t.Error("an empty http.route attribute: unknown URLs must carry none")
		}
	}

	active, ok := got["http.server.active_requests"]
	if !ok {
		t.Fatal("http.server.active_requests missing")
	}
	for _, dp := range active.Data.(metricdata.Sum[int64]).DataPoints {
		if dp.Value != 0 {
			t.Errorf("active requests %d after every request ended (%v)", dp.Value, attrMap(dp.Attributes))
		}
	}
}

func TestActiveRequestsCountsTheRequestInFlight(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(context.Background()) }()
	var during int64 = -1
	installMeters(t, mp)
	h := newTelemetry(t).Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		for _, dp := range collect(t, reader)["http.server.active_requests"].Data.(metricdata.Sum[int64]).DataPoints {
			during = dp.Value
		}
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil))
	if during != 1 {
		t.Fatalf("active requests during the request: %d, want 1", during)
	}
}

// The wrapper records into the global meter provider while one is
// installed, and nothing before or after.
func TestMetricsFollowTheGlobalProvider(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(context.Background()) }()
	tel := newTelemetry(t)
	h := tel.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	count := func() uint64 {
		var n uint64
		if m, ok := collect(t, reader)["http.server.request.duration"]; ok {
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				n += dp.Count
			}
		}
		return n
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	prev := otel.GetMeterProvider()
	otel.SetMeterProvider(mp)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	otel.SetMeterProvider(prev)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	if n := count(); n != 1 {
		t.Fatalf("%d requests measured, want only the one while the provider was set", n)
	}
}
