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

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/svctest"
)

// load is a steady load on replicas of replicaOn while a topology is
// disturbed: one caller per replica on the limited route (20/s, burst 1,
// shared), and one per replica sending each idempotency key to its
// replica and then to the next one.
type load struct {
	checked, unchecked, refused atomic.Int64   // GET /limited: 200 with RateLimit fields, 200 without, 429
	spreadUnchecked             atomic.Int64   // GET /spread (budgets on every shard): 200 without RateLimit fields
	notReady                    []atomic.Int64 // per replica: when the last /readyz that answered 503 was sent, Unix ns
	keys, created               atomic.Int64   // POST /items: keys sent, 201s
	unavailable                 atomic.Int64   // POST /items: 503 (fails closed while no primary answers)
	unfinished                  sync.Map       // POST /items: keys no send completed (string → struct{})

	prefix string // this run's idempotency keys
	start  time.Time
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startLoad(t *testing.T, apps []*svctest.App, name string) *load {
	ctx, cancel := context.WithCancel(t.Context())
	l := &load{start: time.Now(), cancel: cancel, notReady: make([]atomic.Int64, len(apps))}
	l.prefix = fmt.Sprintf("%s-%d-", name, l.start.UnixNano())
	t.Cleanup(func() { l.stop() })
	for i := range apps {
		l.wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				l.limited(t, apps[i])
				l.spread(t, apps[i], n)
				time.Sleep(10 * time.Millisecond)
			}
		})
		l.wg.Go(func() { // a load balancer's probe
			for ctx.Err() == nil {
				sent := time.Now()
				if apps[i].Request("GET", "/readyz").Send(t).Status != http.StatusOK {
					l.notReady[i].Store(sent.UnixNano())
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
		l.wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				key := fmt.Sprintf("%s%d-%d", l.prefix, i, n)
				l.keys.Add(1)
				done := false
				for j := range 2 {
					done = l.item(t, apps[(i+j)%len(apps)], key, j == 0) || done
				}
				if !done {
					l.unfinished.Store(key, struct{}{})
				}
			}
		})
	}
	return l
}

func (l *load) limited(t *testing.T, app *svctest.App) {
	resp := app.Request("GET", "/limited").Token(behindtest.Alice).Send(t)
	switch {
	case resp.Status == http.StatusTooManyRequests:
		l.refused.Add(1)
	case resp.Status == http.StatusOK && resp.Header.Get("RateLimit") != "":
		l.checked.Add(1)
	case resp.Status == http.StatusOK:
		l.unchecked.Add(1)
	default:
		t.Errorf("GET /limited: %d", resp.Status)
	}
}

// spread spends the n-th of 32 budgets, spread over a Cluster's shards.
func (l *load) spread(t *testing.T, app *svctest.App, n int) {
	resp := app.Request("GET", fmt.Sprintf("/spread?k=%d", n%32)).Token(behindtest.Alice).Send(t)
	switch {
	case resp.Status != http.StatusOK:
		t.Errorf("GET /spread: %d", resp.Status)
	case resp.Header.Get("RateLimit") == "":
		l.spreadUnchecked.Add(1)
	}
}

// readyAfter fails t when a replica answered /readyz 503 to a probe sent
// after since.
func (l *load) readyAfter(t *testing.T, since time.Time) {
	t.Helper()
	for i := range l.notReady {
		if at := l.notReady[i].Load(); at > since.UnixNano() {
			t.Errorf("replica %d answered /readyz 503 %s after every replica was ready again", i, time.Duration(at-since.UnixNano()).Round(time.Millisecond))
		}
	}
}

// item sends key to app and reports whether it completed (201).
func (l *load) item(t *testing.T, app *svctest.App, key string, first bool) bool {
	resp := postTo(t, app, "/items", key)
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusCreated:
		if first {
			l.created.Add(1)
		}
		return true
	case http.StatusServiceUnavailable:
		l.unavailable.Add(1)
	default:
		// A 409 or 504: the key was held in flight for a whole request
		// (idempotency.Wait) with no replica running it.
		t.Errorf("POST /items with Idempotency-Key %s: %d", key, resp.StatusCode)
	}
	return false
}

// everyKeyCompletes sends again, once the topology is whole again, each
// key no send completed during the disturbance (503: no primary answered
// its claim, or the claim's answer was lost): each must complete (201)
// within the request timeout, where a claim Redis kept held its key in
// flight for the whole lease (issue 37 item 2).
func (l *load) everyKeyCompletes(t *testing.T, apps []*svctest.App) {
	t.Helper()
	n, stuck := 0, 0
	l.unfinished.Range(func(k, _ any) bool {
		n++
		key := k.(string)
		deadline := time.Now().Add(itemTimeout + time.Second)
		for {
			resp := postTo(t, apps[n%len(apps)], "/items", key)
			resp.Body.Close()
			if resp.StatusCode == http.StatusCreated {
				return true
			}
			if time.Now().After(deadline) {
				stuck++
				t.Errorf("POST /items with Idempotency-Key %s still answers %d %s after the recovery, past the request timeout (%s)",
					key, resp.StatusCode, resp.Header.Get("Content-Type"), itemTimeout)
				return true
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	t.Logf("%d keys no send completed during the disturbance; sent again, %d completed within the request timeout", n, n-stuck)
}

// stop ends the load, waits for its callers and returns how long it ran.
func (l *load) stop() time.Duration {
	l.cancel()
	l.wg.Wait()
	return time.Since(l.start)
}

func (l *load) String() string {
	return fmt.Sprintf("GET /limited: %d checked, %d unchecked (fail open), %d refused; GET /spread: %d unchecked; POST /items: %d keys, %d created, %d answered 503",
		l.checked.Load(), l.unchecked.Load(), l.refused.Load(), l.spreadUnchecked.Load(), l.keys.Load(), l.created.Load(), l.unavailable.Load())
}

// heldTheLimit checks what the load saw over elapsed: the checked
// admissions stayed within the shared budget plus extraBursts (what the
// docs/redis.md says a disturbance can lose), the limit refused some, no
// idempotency key ran twice, and callers were served.
func (l *load) heldTheLimit(t *testing.T, elapsed time.Duration, extraBursts int) {
	t.Helper()
	budget := 1 + float64(elapsed)/float64(50*time.Millisecond)
	if got := float64(l.checked.Load()); got > budget+float64(extraBursts) {
		t.Errorf("checked admissions %v > budget %.0f + %d bursts", got, budget, extraBursts)
	}
	if l.refused.Load() == 0 {
		t.Error("nothing refused: the limit was not enforced")
	}
	itemRuns.Range(func(k, n any) bool {
		if strings.HasPrefix(k.(string), l.prefix) && n.(*atomic.Int64).Load() > 1 {
			t.Errorf("POST /items with Idempotency-Key %s ran %d times", k, n.(*atomic.Int64).Load())
		}
		return true
	})
	if l.created.Load() == 0 || l.checked.Load() == 0 {
		t.Error("nothing was served")
	}
}
