package fxsvc_test

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/redisstore/fxredis"
	"github.com/svckit/svc/secret"
	"github.com/svckit/svc/svctest"
)

// replica is one app of a service with its shared state on Redis: a
// route limited to 20/s (burst 1) and an idempotent write whose runs are
// counted in writes. The limit is named: in one test process each
// replica's declaration would otherwise get its own default name.
// itemRuns counts the runs of POST /items by Idempotency-Key, across the
// replicas of every test.
var itemRuns sync.Map

func replica(t *testing.T, srv *redistest.Server, writes, items *atomic.Int64) *svctest.App {
	t.Helper()
	return replicaOn(t, redisstore.Config{URL: secret.URL(srv.URL), Timeout: 300 * time.Millisecond}, writes, items)
}

// itemTimeout is the request timeout of POST /items (chi's
// middleware.Timeout): the longest a key whose request could not complete
// may stay in flight.
const itemTimeout = 3 * time.Second

// routerIn is what a replica's router uses: its own metrics when extra
// registers them (three replicas in one process each serve their own).
type routerIn struct {
	fx.In
	Metrics *metrics.Metrics `optional:"true"`
}

// replicaOn is replica on the Redis topology of cfg, with extra options.
func replicaOn(t *testing.T, cfg redisstore.Config, writes, items *atomic.Int64, extra ...fx.Option) *svctest.App {
	t.Helper()
	router := func(in routerIn) *chi.Mux {
		r := chi.NewRouter()
		if in.Metrics != nil {
			r.Method(http.MethodGet, "/metrics", metrics.Handler(in.Metrics))
		}
		r.With(ratelimit.Limit("20/s", 1, ratelimit.Name("limited"))).Get("/limited", func(w http.ResponseWriter, _ *http.Request) {})
		// Budgets on every shard of a Cluster, ample: while one shard is
		// down some fail and others succeed (issue 37 item 4).
		r.With(ratelimit.Limit("1000/s", 1000, ratelimit.Name("spread"), ratelimit.KeyByRoute(func(r *http.Request) string { return r.URL.Query().Get("k") }))).
			Get("/spread", func(w http.ResponseWriter, _ *http.Request) {})
		r.With(idempotency.Required()).Post("/orders", func(w http.ResponseWriter, _ *http.Request) {
			writes.Add(1)
			// Long enough that duplicates sent at once meet it in flight.
			time.Sleep(300 * time.Millisecond)
			w.WriteHeader(http.StatusCreated)
		})
		r.With(middleware.Timeout(itemTimeout), idempotency.Required()).Post("/items", func(w http.ResponseWriter, r *http.Request) {
			items.Add(1)
			n, _ := itemRuns.LoadOrStore(r.Header.Get("Idempotency-Key"), new(atomic.Int64))
			n.(*atomic.Int64).Add(1)
			w.WriteHeader(http.StatusCreated)
		})
		return r
	}
	return svctest.Start(t, fxsvc.Errors(), fxsvc.Authn(behindtest.Verifier{}), fxsvc.Health(),
		fxredis.Config(cfg),
		fxsvc.RateLimits(), fxsvc.Idempotency(idempotency.Wait(5*time.Second)),
		fx.Provide(router), fxsvc.Serve(), fx.Options(extra...))
}

func post(t *testing.T, app *svctest.App, key string) *http.Response {
	t.Helper()
	return postTo(t, app, "/orders", key)
}

// waitReady waits until every app's /readyz answers 200.
func waitReady(t *testing.T, apps ...*svctest.App) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, app := range apps {
		for app.Request("GET", "/readyz").Send(t).Status != http.StatusOK {
			if time.Now().After(deadline) {
				t.Fatal("/readyz did not recover")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func postTo(t *testing.T, app *svctest.App, path, key string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, app.URL+path, strings.NewReader(`{"n":1}`))
	req.Header.Set("Authorization", "Bearer "+behindtest.Alice)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := app.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestRedisThreeReplicasShareOnePolicy(t *testing.T) {
	redistest.EachEngine(t, testRedisThreeReplicasShareOnePolicy)
}

func testRedisThreeReplicasShareOnePolicy(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	var writes, items atomic.Int64
	apps := []*svctest.App{replica(t, srv, &writes, &items), replica(t, srv, &writes, &items), replica(t, srv, &writes, &items)}

	t.Run("one rate limit across replicas", func(t *testing.T) { sharedLimit(t, apps) })
	t.Run("one idempotency key sent to all three at once runs once", func(t *testing.T) { sharedIdempotency(t, apps, &writes) })

	t.Run("Redis down and back", func(t *testing.T) {
		srv.Stop()
		// Rate limits fail open.
		for _, app := range apps {
			if s := app.Request("GET", "/limited").Token(behindtest.Alice).Send(t).Status; s != http.StatusOK && s != http.StatusTooManyRequests {
				t.Fatalf("limited route while down: %d", s)
			}
		}
		// Idempotent writes fail closed: 503 request-refused, the handler never runs.
		writes.Store(0)
		resp := post(t, apps[0], "order-down")
		behindtest.Problem(t, resp, http.StatusServiceUnavailable, "request-refused")
		if writes.Load() != 0 {
			t.Fatal("a write ran while its duplicate could not be detected")
		}
		// Readiness says so.
		if s := apps[1].Request("GET", "/readyz").Send(t).Status; s != http.StatusServiceUnavailable {
			t.Fatalf("/readyz while down: %d", s)
		}

		srv.Restart()
		waitReady(t, apps...)
		// Every caller is served again, each admitted write ran once.
		for i, app := range apps {
			key := "order-after-" + string(rune('a'+i))
			resp := post(t, app, key)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("replica %d after recovery: %d", i, resp.StatusCode)
			}
			again := post(t, apps[(i+1)%3], key)
			again.Body.Close()
			if again.StatusCode != http.StatusCreated || again.Header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("replay on another replica after recovery: %d %v", again.StatusCode, again.Header)
			}
		}
		if writes.Load() != 3 {
			t.Fatalf("%d writes ran after recovery, want 3", writes.Load())
		}
	})
}

func TestRedisOutageMidRunLosesNoAdmittedWrite(t *testing.T) {
	srv := redistest.Start(t)
	var writes, items atomic.Int64
	apps := []*svctest.App{replica(t, srv, &writes, &items), replica(t, srv, &writes, &items), replica(t, srv, &writes, &items)}
	// Writers send fresh keys to the three replicas while Redis goes away
	// and comes back. Every answer is 201 (the write ran once) or 503
	// request-refused (it did not run); nothing else.
	var created, refused, n atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := "item-" + string(rune('a'+w)) + "-" + strconv.Itoa(i)
				resp := postTo(t, apps[(w+i)%3], "/items", key)
				resp.Body.Close()
				n.Add(1)
				switch resp.StatusCode {
				case http.StatusCreated:
					created.Add(1)
				case http.StatusServiceUnavailable:
					refused.Add(1)
				default:
					t.Errorf("%s: status %d", key, resp.StatusCode)
				}
			}
		})
	}
	waitFor := func(cond func() bool) {
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatal("timed out")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor(func() bool { return created.Load() >= 20 })
	srv.Stop()
	waitFor(func() bool { return refused.Load() >= 5 })
	srv.Restart()
	mark := created.Load()
	waitFor(func() bool { return created.Load() >= mark+20 })
	close(stop)
	wg.Wait()
	if items.Load() != created.Load() {
		t.Fatalf("handler ran %d times for %d answers 201 (%d refused of %d)", items.Load(), created.Load(), refused.Load(), n.Load())
	}
	// Once each replica is ready again (its pool reconnected: go-redis
	// probes a Redis that refused its dials once a second), every replica
	// writes again. A pooled connection Redis dropped may still fail one
	// request's store calls (within its one SVC_REDIS_TIMEOUT budget, which
	// a machine under load spends sooner): a few attempts, each a fresh key
	// that a 503 did not write, within two seconds.
	waitReady(t, apps...)
	for i, app := range apps {
		deadline := time.Now().Add(2 * time.Second)
		for attempt := 0; ; attempt++ {
			resp := postTo(t, app, "/items", "after-"+strconv.Itoa(i)+"-"+strconv.Itoa(attempt))
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusCreated {
				break
			}
			if resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
				t.Fatalf("replica %d after recovery: %d %s", i, resp.StatusCode, body)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func TestRedisRefusesBadEnvNamingTheVariable(t *testing.T) {
	t.Setenv("SVC_REDIS_URL", "redis://:hunter2@127.0.0.1:1")
	t.Setenv("SVC_REDIS_TIMEOUT", "soon")
	app := fx.New(fx.NopLogger, fxredis.Redis(), fx.Invoke(func(*redisstore.Client) {}))
	err := app.Err()
	if err == nil || !strings.Contains(err.Error(), "SVC_REDIS_TIMEOUT") || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err = %v", err)
	}
}

// A wrong password fails the app's start naming SVC_REDIS_URL and saying
// Redis refused authentication, without the password.
func TestRedisStartFailsOnRefusedAuthentication(t *testing.T) {
	srv := redistest.Start(t, redistest.Password("right-pw-4d2e"))
	url := strings.Replace(srv.URL, "right-pw-4d2e", "wrong-pw-0b7c", 1)
	app := fx.New(fx.NopLogger, fxredis.Config(redisstore.Config{URL: secret.URL(url), Timeout: 2 * time.Second}),
		fx.Invoke(func(*redisstore.Client) {}))
	err := app.Start(t.Context())
	if err == nil {
		_ = app.Stop(t.Context())
		t.Fatal("the app started with a wrong Redis password")
	}
	if !errors.Is(err, redisstore.ErrAuthRefused) || !strings.Contains(err.Error(), "fxredis.Config: redisstore: SVC_REDIS_URL redis://***@") ||
		!strings.Contains(err.Error(), "refused authentication") || strings.Contains(err.Error(), "pw-") {
		t.Fatalf("err = %v", err)
	}
}

// Regression: issue 24 item 9.
// A failed start prints once (the app's log line, not also a plain line),
// and a Redis that answers with an error is reported with that error, not
// as a Redis that did not answer.
func TestStartFailurePrintsOnceWithRedisReply(t *testing.T) {
	srv := redistest.Start(t)
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
	var out, errOut strings.Builder
	code := fxsvc.Run(nil, &out, &errOut, fx.Supply(chi.NewRouter()), fxsvc.Errors(), fxsvc.Serve(), fxsvc.RateLimits(),
		fxredis.Config(redisstore.Config{URL: secret.URL("redis://" + srv.Addr + "/999"), Timeout: 2 * time.Second}))
	msg := errOut.String()
	if code != 1 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var failures []string
	for line := range strings.Lines(msg) {
		if strings.Contains(line, "ERR DB index is out of range") {
			failures = append(failures, line)
		}
	}
	if len(failures) != 1 || !strings.Contains(failures[0], `"msg":"svc: start failed"`) {
		t.Fatalf("want one start-failure line, on the log:\n%s", msg)
	}
	if strings.Contains(msg, "svc: start:") || strings.Contains(msg, "not answer") || strings.Contains(msg, "OnStart hook") {
		t.Fatalf("printed twice, as a silence, or naming fx's hook:\n%s", msg)
	}
}

// sharedLimit: the replicas spend one rate-limit budget.
func sharedLimit(t *testing.T, apps []*svctest.App) {
	// Two callers per replica send as fast as they can for 1.5 s. GCRA
	// with burst 1 admits 1 + elapsed/50ms in total, whichever replica
	// answers; the upper bound is what sharing guarantees, the lower
	// one that nobody is refused wrongly.
	var admitted, refused atomic.Int64
	start := time.Now()
	stop := start.Add(1500 * time.Millisecond)
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			for time.Now().Before(stop) {
				switch s := apps[i%3].Request("GET", "/limited").Token(behindtest.Alice).Send(t).Status; s {
				case http.StatusOK:
					admitted.Add(1)
				case http.StatusTooManyRequests:
					refused.Add(1)
				default:
					t.Errorf("status %d", s)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	want := 1 + float64(elapsed)/float64(50*time.Millisecond)
	got := float64(admitted.Load())
	// The upper bound is what sharing guarantees. The lower one holds
	// only while the callers kept the budget contended: on a loaded
	// machine a request can take longer than the 50 ms a token takes to
	// come back, and fewer are then admitted without any being refused
	// wrongly.
	sent := got + float64(refused.Load())
	if got > want*1.1+2 || (sent >= 3*want && got < want*0.5) {
		t.Fatalf("admitted %v of %v in %v across 3 replicas, want about %.0f (20/s shared)", got, sent, elapsed, want)
	}
	if refused.Load() == 0 {
		t.Fatal("nothing refused: the limit was not enforced")
	}
}

// sharedIdempotency: one key sent to three replicas at once runs once.
func sharedIdempotency(t *testing.T, apps []*svctest.App, writes *atomic.Int64) {
	writes.Store(0)
	var wg sync.WaitGroup
	statuses := make([]int, 3)
	replayed := 0
	var mu sync.Mutex
	for i, app := range apps {
		wg.Go(func() {
			resp := post(t, app, "order-1")
			resp.Body.Close()
			mu.Lock()
			statuses[i] = resp.StatusCode
			if resp.Header.Get("Idempotent-Replayed") == "true" {
				replayed++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	if writes.Load() != 1 || replayed != 2 {
		t.Fatalf("handler ran %d times, %d replays; statuses %v", writes.Load(), replayed, statuses)
	}
	for _, s := range statuses {
		if s != http.StatusCreated {
			t.Fatalf("statuses %v, want 201 ×3", statuses)
		}
	}
}
