package tracing_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

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
	if ce.Signal != "tracing" {
		t.Fatalf("error %v is not the tracing component's", err)
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

// secretHeaders holds h's values as secrets, as Export.Headers does.
func secretHeaders(h map[string]string) map[string]secret.String {
	out := make(map[string]secret.String, len(h))
	for k, v := range h {
		out[k] = secret.String(v)
	}
	return out
}

func ratio(r float64) *float64 { return &r }
