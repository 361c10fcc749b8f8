package prometheus_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/svckit/svc/modules/metrics"
	metricsprom "github.com/svckit/svc/modules/metrics/prometheus"
)

func TestRegistryOnlyForPrometheus(t *testing.T) {
	if metricsprom.Registry(nil) != nil {
		t.Error("Registry(nil) must be nil")
	}
	for _, e := range []string{"none", "auto"} {
		m, err := metrics.FromConfig(metrics.Config{Exporter: e})
		if err != nil {
			t.Fatal(err)
		}
		if metricsprom.Registry(m) != nil {
			t.Errorf("exporter %s has a Prometheus registry", e)
		}
	}
}

// A collector registered on Registry(m) is scraped through metrics.Handler
// beside the component's own metrics: it is the registry Handler serves.
func TestRegistryIsTheOneHandlerServes(t *testing.T) {
	ctx := context.Background()
	m, err := metrics.FromConfig(metrics.Config{Exporter: "prometheus"})
	if err != nil {
		t.Fatal(err)
	}
	reg := metricsprom.Registry(m)
	if reg == nil {
		t.Fatal("a prometheus component has its registry from construction on")
	}
	other, err := metrics.FromConfig(metrics.Config{Exporter: "prometheus"})
	if err != nil {
		t.Fatal(err)
	}
	if metricsprom.Registry(other) == reg {
		t.Fatal("each component needs its own registry")
	}
	g := prom.NewGauge(prom.GaugeOpts{Name: "app_own_gauge", Help: "registered by the app"})
	g.Set(7)
	reg.MustRegister(g)
	if err := m.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(ctx) })
	c, err := m.Counter("svc.test.calls")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(ctx, 1)

	srv := httptest.NewServer(metrics.Handler(m))
	t.Cleanup(srv.Close)
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("status %d, Content-Type %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	for _, want := range []string{"app_own_gauge 7", "svc_test_calls_total"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("scrape lacks %q:\n%s", want, body)
		}
	}
}
