package fxsvc_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/secret"
	"github.com/svckit/svc/svctest"
)

// readyAfterPromotion is how soon after a new primary is promoted every
// replica must be ready again: the README's promise.
const readyAfterPromotion = 10 * time.Second

// The 3-replica checks of one Redis, on a Sentinel set and on a Cluster,
// then the primary killed under a steady load (issue 23).
func TestRedisTopologiesThreeReplicasAndAFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a Sentinel set and a Cluster are thirteen processes")
	}
	t.Run("sentinel", func(t *testing.T) {
		set := redistest.StartSentinel(t)
		cfg := redisstore.Config{URL: secret.URL(set.URL), Mode: "sentinel", Timeout: 300 * time.Millisecond}
		onTopology(t, cfg, func(t *testing.T) (time.Time, time.Time) {
			old := set.KillPrimary(t)
			killed := time.Now()
			return killed, set.WaitPromoted(t, old.Addr)
		})
	})
	t.Run("cluster", func(t *testing.T) {
		c := redistest.StartCluster(t)
		cfg := redisstore.Config{URL: secret.URL(c.URL), Mode: "cluster", Timeout: 300 * time.Millisecond}
		onTopology(t, cfg, func(t *testing.T) (time.Time, time.Time) {
			key := rateKey(t, c)
			old := c.PrimaryOf(t, key)
			old.Stop()
			killed := time.Now()
			return killed, c.WaitOK(t, key, old.Addr)
		})
	})
}

// rateKey finds the key of the "limited" budget on the Cluster's nodes.
func rateKey(t *testing.T, c *redistest.Cluster) string {
	t.Helper()
	for _, n := range c.Nodes {
		rdb := redis.NewClient(&redis.Options{Addr: n.Addr})
		keys, _ := rdb.Keys(t.Context(), "*limited*").Result()
		_ = rdb.Close()
		for _, k := range keys {
			if !strings.Contains(k, "idem") {
				return k
			}
		}
	}
	t.Fatal("no rate-limit key of the route /limited on any node")
	return ""
}

// onTopology runs the shared-state checks on three replicas of cfg, then
// kill (which returns when it killed the primary and when the new one was
// promoted) under a steady load.
func onTopology(t *testing.T, cfg redisstore.Config, kill func(t *testing.T) (killed, promoted time.Time)) {
	var writes, items atomic.Int64
	apps := []*svctest.App{replicaOn(t, cfg, &writes, &items), replicaOn(t, cfg, &writes, &items), replicaOn(t, cfg, &writes, &items)}
	waitReady(t, apps...)
	t.Run("one rate limit across replicas", func(t *testing.T) { sharedLimit(t, apps) })
	t.Run("one idempotency key sent to all three at once runs once", func(t *testing.T) { sharedIdempotency(t, apps, &writes) })
	t.Run("the primary killed under load", func(t *testing.T) { failover(t, apps, &items, kill) })
}

func failover(t *testing.T, apps []*svctest.App, items *atomic.Int64, kill func(t *testing.T) (killed, promoted time.Time)) {
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	var (
		checked, unchecked, refused atomic.Int64 // GET /limited: 200 with RateLimit fields, 200 without, 429
		keys, created               atomic.Int64 // POST /items: keys sent, 201s
		wg                          sync.WaitGroup
	)
	start := time.Now()
	prefix := fmt.Sprintf("failover-%d-", start.UnixNano()) // this run's keys
	// Steady load: one caller per replica on the limited route (20/s,
	// burst 1, shared), and one per replica sending each idempotency key
	// to its replica and then to the next one.
	for i := range 3 {
		wg.Go(func() {
			for ctx.Err() == nil {
				resp := apps[i].Get(t, "/limited", behindtest.Alice)
				switch {
				case resp.Status == http.StatusTooManyRequests:
					refused.Add(1)
				case resp.Status == http.StatusOK && resp.Header.Get("RateLimit") != "":
					checked.Add(1)
				case resp.Status == http.StatusOK:
					unchecked.Add(1)
				default:
					t.Errorf("GET /limited: %d", resp.Status)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				key := fmt.Sprintf("%s%d-%d", prefix, i, n)
				keys.Add(1)
				for j := range 2 {
					resp := postTo(t, apps[(i+j)%3], "/items", key)
					resp.Body.Close()
					switch resp.StatusCode {
					case http.StatusCreated:
						if j == 0 {
							created.Add(1)
						}
					case http.StatusServiceUnavailable: // fails closed while no primary answers
					default:
						t.Errorf("POST /items: %d", resp.StatusCode)
					}
				}
			}
		})
	}
	time.Sleep(time.Second)
	killed, promoted := kill(t)
	// Every replica ready again within the promised time.
	deadline := promoted.Add(readyAfterPromotion)
	for _, app := range apps {
		for app.Get(t, "/readyz", "").Status != http.StatusOK {
			if time.Now().After(deadline) {
				t.Fatalf("a replica was not ready %s after the promotion", readyAfterPromotion)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	ready := time.Now()
	time.Sleep(time.Second) // served after recovery
	stop()
	wg.Wait()
	elapsed := time.Since(start)
	t.Logf("killed after %s, promoted %s later, all ready %s after that; GET /limited: %d checked, %d unchecked (fail open), %d refused; POST /items: %d keys, %d runs",
		killed.Sub(start).Round(time.Millisecond), promoted.Sub(killed).Round(time.Millisecond), ready.Sub(promoted).Round(time.Millisecond),
		checked.Load(), unchecked.Load(), refused.Load(), keys.Load(), items.Load())
	// The budget over the run, plus the README's loss: one burst per
	// failover (the budget's last unreplicated step).
	budget := 1 + float64(elapsed)/float64(50*time.Millisecond)
	if got := float64(checked.Load()); got > budget+1 {
		t.Errorf("checked admissions %v > budget %.0f + one burst", got, budget)
	}
	if refused.Load() == 0 {
		t.Error("nothing refused: the limit was not enforced")
	}
	itemRuns.Range(func(k, n any) bool {
		if strings.HasPrefix(k.(string), prefix) && n.(*atomic.Int64).Load() > 1 {
			t.Errorf("POST /items with Idempotency-Key %s ran %d times", k, n.(*atomic.Int64).Load())
		}
		return true
	})
	if created.Load() == 0 || checked.Load() == 0 {
		t.Error("nothing was served")
	}
}
