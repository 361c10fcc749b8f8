package unlinked_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svckit/svc/modules/metrics"
)

var envVars = []string{
	"SVC_ENV_LOAD",
	"SVC_METRICS_SERVICE_NAME", "SVC_METRICS_EXPORTER", "SVC_METRICS_ENDPOINT", "SVC_METRICS_HEADERS",
	"SVC_METRICS_BASIC_AUTH_USERNAME", "SVC_METRICS_BASIC_AUTH_PASSWORD", "SVC_METRICS_EXPORT_INTERVAL",
	"SVC_METRICS_EXPORT_TIMEOUT", "SVC_METRICS_RESOURCE_ATTRIBUTES", "SVC_METRICS_SHUTDOWN_TIMEOUT",
	"OTEL_SERVICE_NAME", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
}

func setEnv(t *testing.T, kv map[string]string) {
	t.Helper()
	for _, v := range envVars {
		t.Setenv(v, "")
	}
	for k, v := range kv {
		t.Setenv(k, v)
	}
}

const pkg = "github.com/svckit/svc/modules/metrics/"

// An exporter chosen by any setting but not linked fails construction
// with a *ConfigError naming that setting and the import that links it.
func TestUnlinkedExporterRefusedAtConstruction(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		build   func() (*metrics.Metrics, error)
		setting string
		field   string
		imp     string
	}{
		{"env otlp-grpc", map[string]string{"SVC_METRICS_EXPORTER": "OTLP-GRPC"},
			func() (*metrics.Metrics, error) { return metrics.New() },
			"SVC_METRICS_EXPORTER", "exporter", "otlpgrpc"},
		{"env otlp-http", map[string]string{"SVC_METRICS_EXPORTER": "otlp-http", "SVC_METRICS_ENDPOINT": "http://collector:4318"},
			func() (*metrics.Metrics, error) { return metrics.New() },
			"SVC_METRICS_EXPORTER", "exporter", "otlphttp"},
		{"env auto with an SVC endpoint", map[string]string{"SVC_METRICS_EXPORTER": "auto", "SVC_METRICS_ENDPOINT": "http://collector:4318"},
			func() (*metrics.Metrics, error) { return metrics.New() },
			"SVC_METRICS_ENDPOINT", "endpoint", "otlphttp"},
		{"default auto with an OTEL endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"},
			func() (*metrics.Metrics, error) { return metrics.New() },
			"OTEL_EXPORTER_OTLP_ENDPOINT", "endpoint", "otlphttp"},
		{"option console", nil,
			func() (*metrics.Metrics, error) {
				return metrics.New(metrics.WithConfig(metrics.Config{Exporter: "console"}))
			},
			"Config.Exporter of metrics.WithConfig", "exporter", "console"},
		{"default exporter prometheus", nil,
			func() (*metrics.Metrics, error) {
				return metrics.New(metrics.WithDefaultExporter("prometheus"))
			},
			"metrics.WithDefaultExporter", "exporter", "prometheus"},
		{"config prometheus", nil,
			func() (*metrics.Metrics, error) {
				return metrics.FromConfig(metrics.Config{Exporter: "prometheus"})
			},
			"Config.Exporter", "exporter", "prometheus"},
		{"config auto with an endpoint", nil,
			func() (*metrics.Metrics, error) {
				return metrics.FromConfig(metrics.Config{Export: metrics.Export{Endpoint: "https://user:hunter2@collector:4318"}})
			},
			"Config.Endpoint", "endpoint", "otlphttp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setEnv(t, tt.env)
			m, err := tt.build()
			var ce *metrics.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v (component %v), want a *metrics.ConfigError", err, m)
			}
			if ce.Setting != tt.setting || ce.Field != tt.field {
				t.Errorf("Setting, Field = %q, %q; want %q, %q", ce.Setting, ce.Field, tt.setting, tt.field)
			}
			msg := err.Error()
			for _, want := range []string{
				"not linked",
				`import _ "` + pkg + tt.imp + `"`,
				`"` + pkg + `allexporters"`,
			} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
			if strings.Contains(msg, "hunter2") {
				t.Errorf("message leaks the endpoint password: %q", msg)
			}
			if ce.Signal != "metrics" {
				t.Errorf("the refusal must be the metrics component's, got %q", ce.Signal)
			}
		})
	}
}

// none, and auto without an endpoint, need no exporter: the component
// builds, opens inactive, and /metrics answers 404 as for any exporter
// that is not scraped.
func TestInactiveNeedsNoExporter(t *testing.T) {
	for _, e := range []string{"none", "auto", ""} {
		t.Run("exporter="+e, func(t *testing.T) {
			setEnv(t, map[string]string{"SVC_METRICS_EXPORTER": e})
			m, err := metrics.New()
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			ctx := context.Background()
			if err := m.Open(ctx); err != nil {
				t.Fatalf("Open: %v", err)
			}
			t.Cleanup(func() { _ = m.Close(ctx) })
			if m.Exporter() != "none" || m.Active() {
				t.Fatalf("exporter %q active %v, want none and inactive", m.Exporter(), m.Active())
			}
			rec := httptest.NewRecorder()
			metrics.Handler(m).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
			if rec.Code != http.StatusNotFound {
				t.Errorf("status = %d, want 404", rec.Code)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type = %q, want application/problem+json", ct)
			}
			if !strings.Contains(rec.Body.String(), `"status":404`) {
				t.Errorf("body = %s, want a 404 problem", rec.Body)
			}
		})
	}
}
