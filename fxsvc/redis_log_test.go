package fxsvc_test

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/redisstore/fxredis"
)

func loggedRouter() *chi.Mux {
	r := chi.NewRouter()
	// One a minute after a burst of 10: the in-memory test trips it whatever
	// the machine's load.
	r.With(ratelimit.Limit("1/m", 10, ratelimit.Name("logged"))).Get("/limited", func(http.ResponseWriter, *http.Request) {})
	return r
}

// waitForPrefix waits for a record whose msg starts with prefix.
func (r *running) waitForPrefix(t *testing.T, prefix string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, rec := range records(r.stderr.String()) {
			if m, _ := rec["msg"].(string); strings.HasPrefix(m, prefix) {
				return rec
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no line starting %q:\n%s", prefix, r.stderr.String())
	return nil
}

func getLimited(t *testing.T, addr string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/limited", nil)
	req.Header.Set("Authorization", "Bearer "+behindtest.Alice)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Issue 24 item 1: an app with no *zap.Logger of its own, Redis stopped
// and started again under it. Its stderr holds the fail-open warning,
// go-redis's own line and the recovery line, and never the password.
// go-redis's lines are throttled per process, so the app runs in a child
// process of its own.
func TestRedisWarningsReachAnAppWithoutALogger(t *testing.T) {
	if os.Getenv("FXSVC_REDIS_LOG_CHILD") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRedisWarningsReachAnAppWithoutALogger$", "-test.v")
		cmd.Env = append(os.Environ(), "FXSVC_REDIS_LOG_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err == nil && bytes.Contains(out, []byte("--- SKIP")) {
			t.Skipf("child skipped:\n%s", out)
		}
		if err != nil || !bytes.Contains(out, []byte("--- PASS")) {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	const pw = "pw-7f3a-never-printed"
	srv := redistest.Start(t, redistest.Password(pw))
	t.Setenv("SVC_REDIS_URL", srv.URL)
	t.Setenv("SVC_REDIS_TIMEOUT", "300ms")
	app := runApp(t, fxsvc.Errors(), fxsvc.Authn(behindtest.Verifier{}), fxredis.Redis(), fxsvc.RateLimits(),
		fx.Provide(loggedRouter), fxsvc.Serve())
	start := app.waitFor(t, "svc: started")
	if got, want := start["shared_state"], "redis redis://"+srv.Addr; got != want {
		t.Errorf("the start line's shared_state = %v, want %q", got, want)
	}
	if cfg, _ := start["config"].(map[string]any); cfg["redis"] != nil {
		t.Errorf("the start line names Redis twice: config.redis = %v beside shared_state", cfg["redis"])
	}
	addr := app.address(t)
	if s := getLimited(t, addr); s != http.StatusOK {
		t.Fatalf("status %d before the outage", s)
	}
	srv.Stop()
	for range 3 {
		if s := getLimited(t, addr); s != http.StatusOK {
			t.Fatalf("status %d during the outage: the limit must fail open", s)
		}
	}
	app.waitForPrefix(t, "svc.redis: ratelimit store cannot reach Redis; failing open")
	app.waitForPrefix(t, "svc.redis: go-redis: redis: connection pool: failed to dial")
	srv.Restart()
	deadline := time.Now().Add(20 * time.Second)
	for {
		getLimited(t, addr)
		if strings.Contains(app.stderr.String(), "svc.redis: ratelimit store reaches Redis again") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	app.waitForPrefix(t, "svc.redis: ratelimit store reaches Redis again")
	if strings.Contains(app.stderr.String(), pw) {
		t.Fatalf("stderr holds the password:\n%s", app.stderr.String())
	}
}

// Issue 24 item 17: fxredis.Redis without SVC_REDIS_URL starts on the
// in-memory stores and says so once, so that one app runs with and
// without Redis.
func TestRedisWithoutAURLRunsInMemoryAndSaysSo(t *testing.T) {
	t.Setenv("SVC_REDIS_URL", "")
	app := runApp(t, fxsvc.Errors(), fxsvc.Authn(behindtest.Verifier{}), fxredis.Redis(), fxsvc.RateLimits(),
		fx.Provide(loggedRouter), fxsvc.Serve())
	rec := app.waitForPrefix(t, "svc.redis: SVC_REDIS_URL is not set")
	if rec["level"] != "info" {
		t.Errorf("level = %v, want info", rec["level"])
	}
	if n := strings.Count(app.stderr.String(), "SVC_REDIS_URL is not set: rate limits"); n != 1 {
		t.Errorf("%d in-memory lines, want 1", n)
	}
	start := app.waitFor(t, "svc: started")
	if got := start["shared_state"]; got != "in-memory (not shared between replicas)" {
		t.Errorf("the start line's shared_state = %v", got)
	}
	// The limit works on the in-memory store: burst 10, then 429.
	addr := app.address(t)
	codes := map[int]int{}
	for range 30 {
		codes[getLimited(t, addr)]++
	}
	if codes[http.StatusOK] < 10 || codes[http.StatusTooManyRequests] == 0 {
		t.Fatalf("statuses %v: the in-memory limit did not hold", codes)
	}
}
