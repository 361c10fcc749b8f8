package fxsvc_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/svctest"
)

// Issue 24 item 12: `promtool check metrics` on /metrics exited 3
// (go_goroutine_count: a gauge must not end in _count). The exposition a
// scraper gets, with the Go runtime and HTTP server metrics in it, is
// parsed with Prometheus' own parser and passes promtool's lint rules.
func TestMetricsExpositionPassesPromtoolLint(t *testing.T) {
	metricsEnvClean(t)
	t.Setenv("SVC_METRICS_EXPORTER", "prometheus")
	var m *metrics.Metrics
	r := chi.NewRouter()
	r.Get("/items", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	r.Method(http.MethodGet, "/metrics", metrics.Handler(nil))
	app := svctest.Start(t, fx.Supply(zap.NewNop(), r), fxsvc.Metrics(), fxsvc.Serve(), fx.Populate(&m))
	if resp := app.Request("GET", "/items").Send(t); resp.Status != http.StatusOK {
		t.Fatalf("GET /items: %d", resp.Status)
	}
	resp := app.Request("GET", "/metrics").Send(t)
	if resp.Status != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", resp.Status, resp.Body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(resp.Body))
	if err != nil {
		t.Fatalf("the exposition does not parse: %v\n%s", err, resp.Body)
	}
	// The runtime instrumentation is there, under a name the lint accepts.
	for _, name := range []string{"go_goroutine", "go_memory_used_bytes", "http_server_request_duration_seconds"} {
		if fams[name] == nil {
			t.Errorf("%s missing from the exposition", name)
		}
	}
	var all []*dto.MetricFamily
	for _, mf := range fams {
		all = append(all, mf)
	}
	problems, err := promlint.NewWithMetricFamilies(all).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promtool lint: %s: %s", p.Metric, p.Text)
	}
}
