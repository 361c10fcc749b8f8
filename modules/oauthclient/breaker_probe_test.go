package oauthclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/oauthclient"
)

// The probe's success closes the breaker: the change to closed is logged
// and recorded, naming the host and its port, and two requests at once
// both go through (a breaker left half-open would take the first as a
// new probe and refuse the second).
func TestResilientProbeSuccessClosesTheBreaker(t *testing.T) {
	reader, _ := installTelemetry(t)
	core, logs := observer.New(zap.InfoLevel)
	clk := newClock()
	api := newFaultAPI(t)
	api.down = &fault{status: 503}
	u, _ := url.Parse(api.URL)
	port, _ := strconv.Atoi(u.Port())
	c := newClient(t, newTokenServer(t), clk, oauthclient.Logger(zap.New(core)))
	hc, _, _ := resilientClient(t, c, oauthclient.Resilience{MaxAttempts: 1, MinRequests: 2, FailureRate: 0.5, OpenFor: 5 * time.Second})
	for range 2 {
		send(t, hc, context.Background(), http.MethodGet, api.URL, "")
	}
	if _, err := send(t, hc, context.Background(), http.MethodGet, api.URL, ""); !errors.As(err, new(*oauthclient.CircuitOpenError)) {
		t.Fatalf("err %v, want the breaker open", err)
	}

	api.mu.Lock()
	api.down = nil
	api.mu.Unlock()
	clk.Advance(5 * time.Second)
	if resp, err := send(t, hc, context.Background(), http.MethodGet, api.URL, ""); err != nil || resp.StatusCode != 200 {
		t.Fatalf("probe: %v %v", resp, err)
	}
	for _, msg := range []string{"svc.oauthclient circuit breaker open", "svc.oauthclient circuit breaker closed"} {
		entries := logs.FilterMessage(msg).All()
		if len(entries) != 1 {
			t.Fatalf("%d %q lines, want 1", len(entries), msg)
		}
		f := entries[0].ContextMap()
		if f["server.address"] != "127.0.0.1" || f["server.port"] != int64(port) || f["svc.oauthclient.pattern"] != "api" {
			t.Errorf("%q fields %v, want server.address 127.0.0.1, server.port %d", msg, f, port)
		}
	}
	if got := breakerState(t, reader, port); got != "closed" {
		t.Fatalf("svc.oauthclient.breaker.state for port %d is %q, want closed", port, got)
	}

	// Two requests at once: the API answers neither before it has both.
	both := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(both) }) }
	t.Cleanup(release)
	api.mu.Lock()
	api.script = []fault{{status: 200, hold: both}, {status: 200, hold: both}}
	api.mu.Unlock()
	before := api.hits.Load()
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			resp, err := send(t, hc, context.Background(), http.MethodGet, api.URL, "")
			if err == nil && resp.StatusCode != 200 {
				err = errors.New(resp.Status)
			}
			errs <- err
		}()
	}
	deadline := time.After(time.Minute)
	for api.hits.Load() < before+2 {
		select {
		case err := <-errs:
			t.Fatalf("a request ended before both reached the API: %v (the breaker did not close)", err)
		case <-deadline:
			t.Fatal("the two requests never both reached the API")
		case <-time.After(time.Millisecond):
		}
	}
	release()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// breakerState is the state the breaker gauge gives 1 for the host on
// 127.0.0.1:port.
func breakerState(t *testing.T, reader interface {
	Collect(context.Context, *metricdata.ResourceMetrics) error
}, port int) string {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			g, ok := m.Data.(metricdata.Gauge[int64])
			if !ok || m.Name != "svc.oauthclient.breaker.state" {
				continue
			}
			for _, dp := range g.DataPoints {
				p, _ := dp.Attributes.Value("server.port")
				if st, _ := dp.Attributes.Value("svc.breaker.state"); dp.Value == 1 && p.AsInt64() == int64(port) {
					return st.AsString()
				}
			}
		}
	}
	return ""
}
