package main

import (
	"net/http"
	"testing"

	"github.com/svckit/svc/internal/redistest"
)

// With SVC_REDIS_URL the example keeps its shared state on Redis: its
// readiness follows Redis.
func TestExampleOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	t.Setenv("SVC_REDIS_URL", srv.URL)
	t.Setenv("SVC_REDIS_PREFIX", "example:")
	base := startExample(t)
	srv.Stop()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("/readyz with Redis down: %d, want 503", resp.StatusCode)
	}
}
