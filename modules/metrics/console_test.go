package metrics_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svckit/svc/modules/metrics"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestConsoleExporter(t *testing.T) {
	cleanEnv(t)
	var buf syncBuffer
	m, err := metrics.New(metrics.WithConfig(metrics.Config{Exporter: "Console", ExportInterval: time.Hour}), metrics.WithConsoleWriter(&buf))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Open(ctx); err != nil {
		t.Fatal(err)
	}
	c, _ := m.Counter("svc.console.hits")
	c.Add(ctx, 1)
	if err := m.Close(ctx); err != nil { // the shutdown flush writes
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, `"svc.console.hits"`) {
		t.Fatalf("console output lacks the metric: %s", out)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(strings.TrimSpace(out), "\n", 2)[0]), &v); err != nil {
		t.Fatalf("console output is not JSON: %v", err)
	}
}
