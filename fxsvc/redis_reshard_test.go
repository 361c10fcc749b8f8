package fxsvc_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/secret"
	"github.com/svckit/svc/svctest"
)

// A resharding under live traffic (issue 23): the slot holding the shared
// rate limit's budget moves, with its keys, to another primary while three
// replicas serve a steady load. Every answer is still checked (no fail
// open, no 503), the budget holds with nothing lost, and the replicas
// followed the Cluster's ASK and MOVED redirections. Every idempotency key
// that no send completed during the move completes when sent again within
// the request timeout (issue 37 item 2: none stays in flight for a lease).
func TestRedisClusterReshardUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a Cluster is six processes")
	}
	metricsEnvClean(t)
	t.Setenv("SVC_METRICS_EXPORTER", "prometheus")
	c := redistest.StartCluster(t)
	// A generous timeout: an operation timed out by a loaded machine fails
	// open, which is not what this test is about.
	cfg := redisstore.Config{URL: secret.URL(c.URL), Mode: "cluster", Timeout: 2 * time.Second}
	var writes, items atomic.Int64
	var apps []*svctest.App
	core, logs := observer.New(zapcore.WarnLevel)
	for range 3 {
		apps = append(apps, replicaOn(t, cfg, &writes, &items, fxsvc.Metrics(), fx.Supply(zap.New(core))))
	}
	waitReady(t, apps...)
	sharedLimit(t, apps)

	l := startLoad(t, apps, "reshard")
	time.Sleep(time.Second)
	key := rateKey(t, c) // under the load that keeps it alive
	from, to := c.MoveSlotOf(t, key)
	moved := time.Now()
	time.Sleep(time.Second) // served after the move
	elapsed := l.stop()
	t.Logf("slot of %s moved from %s to %s after %s; %s", key, from.Addr, to.Addr, moved.Sub(l.start).Round(time.Millisecond), l)

	// A failure the resharding caused (a redirection not followed, a
	// CROSSSLOT or TRYAGAIN) fails the test; one operation timed out by a
	// starved machine may fail open (or refuse a write) and is logged as
	// such.
	timedOut := 0
	for _, e := range logs.All() {
		cause := fmt.Sprint(e.ContextMap()["error"])
		switch {
		case strings.Contains(cause, "timeout") || strings.Contains(cause, "deadline exceeded"):
			timedOut++
		case strings.Contains(e.Message, "failing open") || strings.Contains(cause, "MOVED") || strings.Contains(cause, "ASK") ||
			strings.Contains(cause, "TRYAGAIN") || strings.Contains(cause, "CROSSSLOT"):
			t.Errorf("a Redis failure during the resharding: %s: %s", e.Message, cause)
		}
	}
	if n := l.unchecked.Load() + l.unavailable.Load(); n != 0 && timedOut == 0 {
		t.Errorf("%d answers went out unchecked (fail open) or refused (503) during a resharding, with no timeout logged", n)
	}
	l.heldTheLimit(t, elapsed, 0)
	l.everyKeyCompletes(t, apps)
	var redirections float64
	for _, app := range apps {
		fams := scrapeFamilies(t, app)
		redirections += sumOf(fams, "svc_redis_redirections_total", "svc_redis_redirection", "moved") +
			sumOf(fams, "svc_redis_redirections_total", "svc_redis_redirection", "ask")
	}
	if redirections == 0 {
		t.Error("svc_redis_redirections_total stayed 0: the replicas never met the moved slot")
	}
}
