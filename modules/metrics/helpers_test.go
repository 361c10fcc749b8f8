package metrics_test

import (
	"testing"

	"github.com/svckit/svc/secret"

	// The tests use every exporter; the core links none by itself.
	_ "github.com/svckit/svc/modules/metrics/allexporters"
)

// envVars are every variable the package reads; cleanEnv blanks them so
// the test machine's environment cannot leak in (an empty variable counts
// as unset).
var envVars = []string{
	"SVC_ENV_LOAD",
	"SVC_METRICS_SERVICE_NAME", "SVC_METRICS_EXPORTER", "SVC_METRICS_ENDPOINT", "SVC_METRICS_HEADERS",
	"SVC_METRICS_BASIC_AUTH_USERNAME", "SVC_METRICS_BASIC_AUTH_PASSWORD", "SVC_METRICS_EXPORT_INTERVAL",
	"SVC_METRICS_EXPORT_TIMEOUT", "SVC_METRICS_RESOURCE_ATTRIBUTES", "SVC_METRICS_SHUTDOWN_TIMEOUT",
	"OTEL_SERVICE_NAME", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
}

func cleanEnv(t *testing.T) {
	t.Helper()
	for _, v := range envVars {
		t.Setenv(v, "")
	}
}

func setEnv(t *testing.T, kv map[string]string) {
	t.Helper()
	cleanEnv(t)
	for k, v := range kv {
		t.Setenv(k, v)
	}
}

// secretHeaders holds h's values as secrets, as Export.Headers does.
func secretHeaders(h map[string]string) map[string]secret.String {
	out := make(map[string]secret.String, len(h))
	for k, v := range h {
		out[k] = secret.String(v)
	}
	return out
}
