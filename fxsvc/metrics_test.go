package fxsvc_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/lifecycle"
	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/secret"
	// The tests choose exporters by environment, as an app linking all
	// of them would.
	_ "github.com/svckit/svc/modules/metrics/allexporters"
)

func metricsEnvClean(t *testing.T) {
	t.Helper()
	for _, v := range []string{"SVC_ENV_LOAD", "SVC_METRICS_EXPORTER", "SVC_METRICS_ENDPOINT", "SVC_METRICS_EXPORT_INTERVAL",
		"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS",
		"OTEL_EXPORTER_OTLP_METRICS_HEADERS", "OTEL_SERVICE_NAME"} {
		t.Setenv(v, "")
	}
}

// scrapeBody fetches /metrics from the component's handler.
func scrapeBody(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	metrics.Handler(m).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// The component follows the app: installed on start, restored on stop;
// two apps one after the other in one process each get their metrics,
// including from an instrument made before either existed.
func TestMetricsTwoAppsOneAfterTheOther(t *testing.T) {
	metricsEnvClean(t)
	t.Setenv("SVC_METRICS_EXPORTER", "prometheus") // env-driven
	before := otel.GetMeterProvider()
	early, err := otel.Meter("fxsvc.test").Int64Counter("svc.fxsvc.early")
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range []int64{2, 5} {
		var m *metrics.Metrics
		app := fxtest.New(t, fxsvc.Metrics(), fx.Populate(&m))
		app.RequireStart()
		if !m.Active() || otel.GetMeterProvider() == before {
			t.Fatalf("app %d: component not installed", i+1)
		}
		early.Add(context.Background(), n)
		body := scrapeBody(t, m)
		if !strings.Contains(body, "svc_fxsvc_early_total{") || !strings.Contains(body, "} "+strconv.FormatInt(n, 10)+"\n") {
			t.Fatalf("app %d: early instrument missing or wrong:\n%s", i+1, body)
		}
		app.RequireStop()
		if otel.GetMeterProvider() != before {
			t.Fatalf("app %d: stop must restore the previous provider", i+1)
		}
	}
}

// One per app: a second Metrics fails fx.New (fx refuses the second
// provider first, naming onlyOneMetricsPerApp); another claim of the
// metrics kind gets the SingletonError.
func TestMetricsSingleton(t *testing.T) {
	metricsEnvClean(t)
	app := fx.New(fxsvc.Metrics(), fxsvc.Metrics(), fx.NopLogger)
	if err := app.Err(); err == nil || !strings.Contains(err.Error(), "onlyOneMetricsPerApp") {
		t.Fatalf("fx.New err = %v", err)
	}
	app = fx.New(fxsvc.Metrics(), lifecycle.Singleton("metrics", "another"), fx.NopLogger)
	var se *lifecycle.SingletonError
	if !errors.As(app.Err(), &se) || se.Kind != "metrics" || (se.First != "fxsvc.Metrics" && se.Again != "fxsvc.Metrics") {
		t.Fatalf("fx.New err = %v, want a *lifecycle.SingletonError for metrics", app.Err())
	}
}

func TestMetricsConfigErrorFailsNew(t *testing.T) {
	metricsEnvClean(t)
	t.Setenv("SVC_METRICS_EXPORTER", "kafka")
	app := fx.New(fxsvc.Metrics(), fx.NopLogger)
	var ce *metrics.ConfigError
	if !errors.As(app.Err(), &ce) || ce.Setting != "SVC_METRICS_EXPORTER" {
		t.Fatalf("fx.New err = %v, want a ConfigError naming SVC_METRICS_EXPORTER", app.Err())
	}
}

// Registered unconditionally, the auto-disabled component is inactive and
// the app runs.
func TestMetricsAutoDisabledInApp(t *testing.T) {
	metricsEnvClean(t)
	before := otel.GetMeterProvider()
	var m *metrics.Metrics
	app := fxtest.New(t, fxsvc.Metrics(), fx.Populate(&m))
	app.RequireStart()
	if m.Active() || otel.GetMeterProvider() != before {
		t.Fatal("auto-disabled component must stay inactive and install nothing")
	}
	app.RequireStop()
}

// The graph's *zap.Logger receives the abandoned-flush warning, and the
// stop proceeds.
func TestMetricsUsesGraphLogger(t *testing.T) {
	metricsEnvClean(t)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	core, logs := observer.New(zap.WarnLevel)
	var m *metrics.Metrics
	app := fxtest.New(t,
		fx.Supply(zap.New(core)),
		fxsvc.Metrics(metrics.WithConfig(metrics.Config{
			Export: metrics.Export{
				Endpoint:        secret.URL(srv.URL),
				ShutdownTimeout: 100 * time.Millisecond,
			},
			ExportInterval: time.Hour,
		})),
		fx.Populate(&m),
	)
	app.RequireStart()
	c, _ := m.Counter("svc.fxsvc.hang")
	c.Add(context.Background(), 1)
	app.RequireStop()
	if n := logs.FilterMessageSnippet("flush abandoned").Len(); n != 1 {
		t.Fatalf("warnings on the graph logger: %v", logs.All())
	}
	if logs.All()[0].LoggerName != "svc.metrics" {
		t.Fatalf("logger name = %q", logs.All()[0].LoggerName)
	}
}
