package tracing_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/svckit/svc/modules/tracing"
	"github.com/svckit/svc/secret"
)

// clearEnv unsets every variable the component reads, for the test.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "SVC_TRACING_") || strings.HasPrefix(k, "OTEL_") || k == "SVC_ENV_LOAD" {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
}

func setEnv(t *testing.T, env map[string]string) {
	t.Helper()
	clearEnv(t)
	for k, v := range env {
		t.Setenv(k, v)
	}
}

func configError(t *testing.T, err error) *tracing.ConfigError {
	t.Helper()
	var ce *tracing.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T) is not a *tracing.ConfigError", err, err)
	}
	if !errors.Is(err, tracing.ErrConfig) {
		t.Fatalf("error %v does not wrap ErrConfig", err)
	}
	return ce
}

// open opens tr and closes it at the test's end.
func open(t *testing.T, tr *tracing.Tracing) {
	t.Helper()
	if err := tr.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close(context.Background()) })
}

func noFactory(context.Context, tracing.ExportSettings) (sdktrace.SpanExporter, error) {
	return nil, errors.New("unused")
}

type recordingHandler struct {
	mu   sync.Mutex
	errs []error
}

func (h *recordingHandler) Handle(err error) {
	h.mu.Lock()
	h.errs = append(h.errs, err)
	h.mu.Unlock()
}

func (h *recordingHandler) count() int { h.mu.Lock(); defer h.mu.Unlock(); return len(h.errs) }

func toString(v any) string { return fmt.Sprint(v) }

func secretURL(s string) secret.URL { return secret.URL(s) }
