package redisstore_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/store"
)

// While Redis is down go-redis reports each failed dial through its own
// logger, which prints to stderr unless redisstore routed it: the lines
// must reach the app's logger (one a minute), and stderr must stay
// empty. go-redis's default logger holds the stderr of process start, so
// the check runs in a child process whose stderr is read whole.
func TestGoRedisLogsGoToTheAppLoggerNotStderr(t *testing.T) {
	const pw = "s3cret-b8e1"
	if os.Getenv("REDISSTORE_GOLOG_CHILD") == "1" {
		srv := redistest.Start(t, redistest.Password(pw))
		core, logs := observer.New(zap.InfoLevel)
		c := open(t, srv, redisstore.Logger(zap.New(core)))
		srv.Stop()
		for range 5 {
			c.Rates().Allow(t.Context(), store.Key{ID: "k"}, store.Rate{Interval: time.Second, Burst: 1})
			_ = c.Check(t.Context())
		}
		dial := logs.FilterMessageSnippet("svc.redis: go-redis: redis: connection pool: failed to dial").All()
		if len(dial) != 1 || dial[0].ContextMap()["svc.suppressed"] != int64(0) {
			t.Fatalf("go-redis dial lines in the app's log: %d (want 1 for 10 failures within a minute): %v", len(dial), logs.All())
		}
		for _, e := range logs.All() {
			if strings.Contains(e.Message, pw) {
				t.Fatalf("a log line holds the password: %s", e.Message)
			}
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGoRedisLogsGoToTheAppLoggerNotStderr$", "-test.v")
	cmd.Env = append(os.Environ(), "REDISSTORE_GOLOG_CHILD=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil && strings.Contains(stdout.String(), "--- SKIP") {
		t.Skipf("child skipped:\n%s", stdout.String())
	}
	if err != nil || !strings.Contains(stdout.String(), "--- PASS") {
		t.Fatalf("child: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if stderr.Len() != 0 {
		t.Fatalf("go-redis wrote to stderr:\n%s", stderr.String())
	}
}
