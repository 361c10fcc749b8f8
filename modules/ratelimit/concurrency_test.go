package ratelimit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/store"
)

type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// A limit of N/s admits N ± 1 per second from 50 goroutines. The clock is
// fake and walked one interval at a time while the goroutines race, so the
// count does not depend on how loaded the machine is.
func TestALimitOfNPerSecondAdmitsNPerSecondFrom50Goroutines(t *testing.T) {
	const perSecond = 10
	clk := &stepClock{now: time.Unix(1_700_000_000, 0)}
	r := chi.NewRouter()
	r.With(ratelimit.Limit("10/s", 1)).Get("/limited", hello)
	srv := behindtest.Stack(t, r, newLimiter(t, store.NewMemory(store.Clock(clk.Now))).Middleware)
	h := srv.Config.Handler
	interval := time.Second / perSecond
	for second := range 3 {
		var admitted, refused atomic.Int64
		for range perSecond {
			var wg sync.WaitGroup
			for range 50 {
				wg.Go(func() {
					for range 2 {
						req := httptest.NewRequest("GET", "/limited", nil)
						req.Header.Set("Authorization", "Bearer "+behindtest.Alice)
						rec := httptest.NewRecorder()
						h.ServeHTTP(rec, req)
						switch rec.Code {
						case http.StatusOK:
							admitted.Add(1)
						case http.StatusTooManyRequests:
							refused.Add(1)
						default:
							t.Errorf("status %d", rec.Code)
						}
					}
				})
			}
			wg.Wait()
			clk.Advance(interval)
		}
		if got := admitted.Load(); got < perSecond-1 || got > perSecond+1 {
			t.Fatalf("second %d: admitted %d, want %d ± 1", second, got, perSecond)
		}
		if admitted.Load()+refused.Load() != perSecond*100 {
			t.Fatalf("second %d: %d answers", second, admitted.Load()+refused.Load())
		}
	}
}

// The limited counter names the route as the HTTP server metrics do
// (reqfacts.Route): the path template, on chi with its trailing slash
// (chi's own RoutePattern drops it), on a ServeMux without the method
// (net/http's Request.Pattern has it); behind the telemetry wrapper or not.
func TestLimitedRequestsAreCountedByRoute(t *testing.T) {
	limit := func() func(http.Handler) http.Handler { return ratelimit.Limit("1/h", 1, ratelimit.Name("metered")) }
	onChi := func(route string) http.Handler {
		r := chi.NewRouter()
		r.With(limit()).Get(route, hello)
		return r
	}
	onServeMux := func(route string) http.Handler {
		mux := http.NewServeMux()
		mux.Handle("GET "+route, limit()(http.HandlerFunc(hello)))
		return mux
	}
	for _, tc := range []struct {
		name   string
		router func(route string) http.Handler
		route  string
		paths  []string
	}{
		{"chi", onChi, "/orders/{id}", []string{"/orders/1", "/orders/2", "/orders/3"}},
		{"chi, trailing slash", onChi, "/orders/", []string{"/orders/", "/orders/", "/orders/"}},
		{"ServeMux", onServeMux, "/orders/{id}", []string{"/orders/1", "/orders/2", "/orders/3"}},
	} {
		for _, wrapped := range []bool{false, true} {
			var outer []func(http.Handler) http.Handler
			if wrapped {
				outer = append(outer, behindtest.Telemetry(t))
			}
			reader := sdkmetric.NewManualReader()
			prev := otel.GetMeterProvider()
			otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
			srv := behindtest.Stack(t, tc.router(tc.route), append(outer, newLimiter(t, store.NewMemory()).Middleware)...)
			for _, path := range tc.paths {
				_ = behindtest.Body(t, behindtest.Do(t, srv, "GET", path, behindtest.Alice, ""))
			}
			otel.SetMeterProvider(prev)
			if value, route := limitedCount(t, reader); value != 2 || route != tc.route {
				t.Errorf("%s (telemetry %v): %d on %q, want 2 on %s", tc.name, wrapped, value, route, tc.route)
			}
		}
	}
}

// limitedCount is the one data point of svc.rate_limit.limited and its
// http.route.
func limitedCount(t *testing.T, reader *sdkmetric.ManualReader) (int64, string) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "svc.rate_limit.limited" {
				continue
			}
			sum := m.Data.(metricdata.Sum[int64])
			if len(sum.DataPoints) != 1 {
				t.Fatalf("data points: %+v", sum.DataPoints)
			}
			dp := sum.DataPoints[0]
			route, _ := dp.Attributes.Value(attribute.Key("http.route"))
			return dp.Value, route.AsString()
		}
	}
	t.Fatal("svc.rate_limit.limited not recorded")
	return 0, ""
}
