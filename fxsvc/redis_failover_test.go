package fxsvc_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/redis/go-redis/v9"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/secret"
	"github.com/svckit/svc/svctest"
)

// readyAfterPromotion is how soon after a new primary is promoted every
// replica must be ready again: docs/redis.md's promise.
const readyAfterPromotion = 10 * time.Second

// failoverPassword guards the data nodes of the kill tests: no log line
// of any replica may carry it.
const failoverPassword = "kill-test-s3cret"

// The 3-replica checks of one Redis, on a Sentinel set (valkey-server) and
// on a Cluster (redis-server), then the primary killed under a steady load
// (issue 23).
func TestRedisTopologiesThreeReplicasAndAFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a Sentinel set and a Cluster are thirteen processes")
	}
	metricsEnvClean(t)
	t.Setenv("SVC_METRICS_EXPORTER", "prometheus")
	t.Run("sentinel on valkey", func(t *testing.T) {
		set := redistest.StartSentinel(t, redistest.Valkey(), redistest.Password(failoverPassword))
		cfg := redisstore.Config{URL: secret.URL(set.URL), Mode: "sentinel", Timeout: 300 * time.Millisecond}
		onTopology(t, cfg, "sentinel", func(t *testing.T) (time.Time, time.Time) {
			old := set.KillPrimary(t)
			killed := time.Now()
			return killed, set.WaitPromoted(t, old.Addr)
		})
	})
	t.Run("cluster on redis", func(t *testing.T) {
		c := redistest.StartCluster(t, redistest.Redis(), redistest.Password(failoverPassword))
		cfg := redisstore.Config{URL: secret.URL(c.URL), Mode: "cluster", Timeout: 300 * time.Millisecond}
		onTopology(t, cfg, "cluster", func(t *testing.T) (time.Time, time.Time) {
			key := rateKey(t, c)
			old := c.PrimaryOf(t, key)
			// It stalls a second before it dies (issue 37 item 2): the
			// claims sent to it meanwhile time out, then run when it
			// resumes and reach its replica, their requests gone.
			old.Pause(t)
			time.Sleep(time.Second)
			old.Resume(t)
			time.Sleep(200 * time.Millisecond)
			old.Stop()
			killed := time.Now()
			return killed, c.WaitOK(t, key, old.Addr)
		})
	})
}

// rateKey finds the key of the "limited" budget on the Cluster's nodes.
func rateKey(t *testing.T, c *redistest.Cluster) string {
	t.Helper()
	// A budget's key lives only while the budget is spent (50 ms at 20/s):
	// under a steady load it comes and goes, so look until it is seen.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, n := range c.Nodes {
			rdb := redis.NewClient(&redis.Options{Addr: n.Addr, Username: n.User, Password: n.Password})
			keys, _ := rdb.Keys(t.Context(), "*limited*").Result()
			_ = rdb.Close()
			for _, k := range keys {
				if !strings.Contains(k, "idem") {
					return k
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no rate-limit key of the route /limited on any node in 10 s")
	return ""
}

// onTopology runs the shared-state checks on three replicas of cfg, then
// kill (which returns when it killed the primary and when the new one was
// promoted) under a steady load, then reads what each replica logged and
// counted (mode is SVC_REDIS_MODE).
func onTopology(t *testing.T, cfg redisstore.Config, mode string, kill func(t *testing.T) (killed, promoted time.Time)) {
	var writes, items atomic.Int64
	var apps []*svctest.App
	var logs []*observer.ObservedLogs
	for range 3 {
		core, observed := observer.New(zapcore.DebugLevel)
		apps = append(apps, replicaOn(t, cfg, &writes, &items, fxsvc.Metrics(), fx.Supply(zap.New(core))))
		logs = append(logs, observed)
	}
	waitReady(t, apps...)
	t.Run("one rate limit across replicas", func(t *testing.T) { sharedLimit(t, apps) })
	t.Run("one idempotency key sent to all three at once runs once", func(t *testing.T) { sharedIdempotency(t, apps, &writes) })
	// A check timed out on a loaded machine before the kill fails open
	// too: count from here.
	var before float64
	for _, app := range apps {
		before += sumOf(scrapeFamilies(t, app), "svc_redis_fail_open_total", "svc_redis_store", "ratelimit")
	}
	var unchecked int64
	t.Run("the primary killed under load", func(t *testing.T) { unchecked = failover(t, apps, &items, kill) })
	t.Run("nothing printed or counted wrong", func(t *testing.T) { printedAndCounted(t, apps, logs, mode, before, unchecked) })
}

// printedAndCounted holds what each replica said about the failover: the
// fail-open count rose (from before) by the requests served without a
// rate-limit check, each
// replica counted and logged the one failover once, warned about failing
// open (at most once a minute per store and operation, and said it
// recovered at most once), and no line carried the password.
func printedAndCounted(t *testing.T, apps []*svctest.App, logs []*observer.ObservedLogs, mode string, before float64, unchecked int64) {
	// The three replicas share this test's process, and so its one global
	// meter provider (see package metrics): their counts are read summed.
	var failOpen, failovers float64
	var warnings int
	for i, app := range apps {
		fams := scrapeFamilies(t, app)
		failOpen += sumOf(fams, "svc_redis_fail_open_total", "svc_redis_store", "ratelimit")
		failovers += sumOf(fams, "svc_redis_failovers_total", "svc_redis_mode", mode)
		if n := len(logs[i].FilterMessageSnippet("a new primary took over").All()); n != 1 {
			t.Errorf("replica %d logged %d failover warnings, want 1", i, n)
		}
		warned, back := map[string]int{}, map[string]int{}
		for _, e := range logs[i].All() {
			line := e.Message + fmt.Sprint(e.ContextMap())
			if strings.Contains(line, failoverPassword) {
				t.Errorf("replica %d logged the password: %s", i, line)
			}
			if strings.Contains(e.Message, "failing open") || strings.Contains(e.Message, "fail open") {
				warned[fmt.Sprint(e.ContextMap()["svc.redis.store"], " ", e.ContextMap()["db.operation.name"])]++
			}
			if strings.Contains(e.Message, "reaches Redis again") {
				back[fmt.Sprint(e.ContextMap()["svc.redis.store"])]++
			}
		}
		for store, n := range warned {
			if n > 1 {
				t.Errorf("replica %d warned %d times that %s fails open within a minute, want once", i, n, store)
			}
		}
		for store, n := range back {
			if n > 1 {
				t.Errorf("replica %d said %d times within a minute that the %s store reaches Redis again, want once", i, n, store)
			}
		}
		warnings += len(warned)
	}
	if unchecked > 0 && warnings == 0 {
		t.Errorf("%d answers went out unchecked and no replica warned that it fails open", unchecked)
	}
	if failovers != float64(len(apps)) {
		t.Errorf("svc_redis_failovers_total{svc_redis_mode=%q} over the replicas = %v, want %d: one primary killed, seen once by each replica", mode, failovers, len(apps))
	}
	if failOpen-before != float64(unchecked) {
		t.Errorf("svc_redis_fail_open_total{ratelimit} over the replicas rose by %v, but %d answers went out without a rate-limit check", failOpen-before, unchecked)
	}
}

// scrapeFamilies reads app's own /metrics with Prometheus' parser.
func scrapeFamilies(t *testing.T, app *svctest.App) map[string]*dto.MetricFamily {
	t.Helper()
	resp := app.Request("GET", "/metrics").Token(behindtest.Alice).Send(t)
	if resp.Status != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", resp.Status, resp.Body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(resp.Body))
	if err != nil {
		t.Fatalf("the exposition does not parse: %v", err)
	}
	return fams
}

// sumOf adds the counters of family name whose label has value.
func sumOf(fams map[string]*dto.MetricFamily, name, label, value string) float64 {
	var sum float64
	for _, m := range fams[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label && l.GetValue() == value {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

// failover runs the steady load around kill and returns how many answers
// of GET /limited went out without a rate-limit check (failing open).
// Every idempotency key that no send completed during the failover
// completes when sent again within the request timeout (issue 37 item 2).
func failover(t *testing.T, apps []*svctest.App, items *atomic.Int64, kill func(t *testing.T) (killed, promoted time.Time)) int64 {
	l := startLoad(t, apps, "failover")
	time.Sleep(time.Second)
	killed, promoted := kill(t)
	// Every replica ready again within the promised time.
	deadline := promoted.Add(readyAfterPromotion)
	for _, app := range apps {
		for app.Request("GET", "/readyz").Send(t).Status != http.StatusOK {
			if time.Now().After(deadline) {
				t.Fatalf("a replica was not ready %s after the promotion", readyAfterPromotion)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	ready := time.Now()
	time.Sleep(time.Second) // served after recovery
	elapsed := l.stop()
	// Ready it stays: no failover counted that did not happen, no dip
	// (issue 37 item 3).
	l.readyAfter(t, ready)
	t.Logf("killed after %s, promoted %s later, all ready %s after that; %s, %d runs",
		killed.Sub(l.start).Round(time.Millisecond), promoted.Sub(killed).Round(time.Millisecond), ready.Sub(promoted).Round(time.Millisecond),
		l, items.Load())
	// The budget over the run, plus docs/redis.md's loss: one burst per
	// failover (the budget's last unreplicated step).
	l.heldTheLimit(t, elapsed, 1)
	l.everyKeyCompletes(t, apps)
	return l.unchecked.Load() + l.spreadUnchecked.Load()
}
