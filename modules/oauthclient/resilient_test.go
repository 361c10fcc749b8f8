package oauthclient_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/oauthclient"
)

// fault is one scripted answer of a faultAPI.
type fault struct {
	status int
	header map[string]string
	reset  bool          // close the connection with a TCP reset, no answer
	hold   chan struct{} // answer only once closed (or the client gave up)
}

// faultAPI is a downstream API on 127.0.0.1 that answers its script, then
// 200 (or always, once down is set). It records what it received.
type faultAPI struct {
	*httptest.Server
	mu      sync.Mutex
	script  []fault
	down    *fault // answers every request after the script when set
	auths   []string
	keys    []string // Idempotency-Key headers
	methods []string
	hits    atomic.Int64
}

func newFaultAPI(t testing.TB, script ...fault) *faultAPI {
	a := &faultAPI{script: script}
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.Close)
	return a
}

func (a *faultAPI) serve(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	a.hits.Add(1)
	a.mu.Lock()
	a.auths = append(a.auths, r.Header.Get("Authorization"))
	a.keys = append(a.keys, r.Header.Get("Idempotency-Key"))
	a.methods = append(a.methods, r.Method)
	f := a.down
	if len(a.script) > 0 {
		f = &a.script[0]
		a.script = a.script[1:]
	}
	a.mu.Unlock()
	if f == nil {
		io.WriteString(w, "ok")
		return
	}
	if f.hold != nil {
		select {
		case <-f.hold:
		case <-r.Context().Done():
			return
		}
	}
	if f.reset {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
			conn.Close()
		}
		return
	}
	for k, v := range f.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(f.status)
}

func (a *faultAPI) seen() (auths, keys []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.auths...), append([]string(nil), a.keys...)
}

// waits records the waits between attempts, without sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

// resilientClient is an http.Client of a resilient pattern over a fresh
// connection per request, so that net/http never repeats a request on
// its own (it does on a reused connection that fails).
func resilientClient(t testing.TB, c *oauthclient.Client, r oauthclient.Resilience) (*http.Client, *oauthclient.Pattern, *waits) {
	w := &waits{}
	p := newCC(t, c, "api", oauthclient.Sleeping(r, w.sleep))
	base := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(base.CloseIdleConnections)
	return &http.Client{Transport: p.Transport(base)}, p, w
}

func send(t testing.TB, hc *http.Client, ctx context.Context, method, url string, body string) (*http.Response, error) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return resp, err
}

func TestResilientRetriesWhatMayBeRetried(t *testing.T) {
	const backoff = 40 * time.Millisecond
	cases := []struct {
		name       string
		script     []fault
		wantStatus int
		wantHits   int64
		wantWaits  []time.Duration // exact waits; nil: each below its backoff ceiling
	}{
		{"a 5xx burst", []fault{{status: 503}, {status: 502}}, 200, 3, nil},
		{"a 504", []fault{{status: 504}}, 200, 2, nil},
		{"a burst longer than the attempts", []fault{{status: 503}, {status: 503}, {status: 503}, {status: 503}}, 503, 3, nil},
		{"a 500 is an answer", []fault{{status: 500}}, 500, 1, []time.Duration{}},
		{"a 404 is an answer", []fault{{status: 404}}, 404, 1, []time.Duration{}},
		{"429 with Retry-After", []fault{{status: 429, header: map[string]string{"Retry-After": "1"}}}, 200, 2, []time.Duration{time.Second}},
		{"503 with Retry-After", []fault{{status: 503, header: map[string]string{"Retry-After": "2"}}}, 200, 2, []time.Duration{2 * time.Second}},
		{"429 with an exhausted RateLimit quota", []fault{{status: 429, header: map[string]string{
			"RateLimit": `"burst";r=3;t=1, "day";r=0;t=3`}}}, 200, 2, []time.Duration{3 * time.Second}},
		{"a pause over MaxWait is not waited for", []fault{{status: 503, header: map[string]string{"Retry-After": "60"}}}, 503, 1, []time.Duration{}},
		{"a connection reset", []fault{{reset: true}}, 200, 2, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			api := newFaultAPI(t, tc.script...)
			hc, _, w := resilientClient(t, newClient(t, newTokenServer(t), newClock()),
				oauthclient.Resilience{Backoff: backoff, MaxWait: 5 * time.Second, NoBreaker: true})
			resp, err := send(t, hc, context.Background(), http.MethodGet, api.URL, "")
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.wantStatus || api.hits.Load() != tc.wantHits {
				t.Fatalf("status %d after %d hits, want %d after %d", resp.StatusCode, api.hits.Load(), tc.wantStatus, tc.wantHits)
			}
			got := w.all()
			if tc.wantWaits != nil {
				if len(got) != len(tc.wantWaits) {
					t.Fatalf("waits %v, want %v", got, tc.wantWaits)
				}
				for i := range got {
					if got[i] != tc.wantWaits[i] {
						t.Fatalf("waits %v, want %v", got, tc.wantWaits)
					}
				}
				return
			}
			if len(got) != int(tc.wantHits)-1 {
				t.Fatalf("waits %v for %d hits", got, tc.wantHits)
			}
			for i, d := range got {
				if ceiling := backoff << i; d < 0 || d > ceiling {
					t.Fatalf("wait %d is %v, want full jitter within [0, %v]", i+1, d, ceiling)
				}
			}
		})
	}
}

// A request that could act twice is sent once: no idempotent method, no
// Idempotency-Key, or a body that cannot be sent again.
func TestResilientNeverSendsTwiceWithoutAnIdempotencyKey(t *testing.T) {
	cases := []struct {
		name     string
		method   string
		body     io.Reader
		key      string // the caller's Idempotency-Key
		addKeys  bool
		wantHits int64
	}{
		{"POST", http.MethodPost, strings.NewReader("order"), "", false, 1},
		{"PATCH", http.MethodPatch, strings.NewReader("order"), "", false, 1},
		{"GET with a body read once", http.MethodGet, io.MultiReader(strings.NewReader("q")), "", false, 1},
		{"PUT with a body read once", http.MethodPut, io.MultiReader(strings.NewReader("q")), "", false, 1},
		{"POST with the caller's key", http.MethodPost, strings.NewReader("order"), `"k-1"`, false, 2},
		{"POST with a key added", http.MethodPost, strings.NewReader("order"), "", true, 2},
		{"PATCH with a key added", http.MethodPatch, strings.NewReader("order"), "", true, 2},
		{"POST with a key added but a body read once", http.MethodPost, io.MultiReader(strings.NewReader("q")), "", true, 1},
		{"PUT", http.MethodPut, strings.NewReader("doc"), "", false, 2},
		{"DELETE", http.MethodDelete, nil, "", false, 2},
	}
	for _, tc := range cases {
		for _, fail := range []fault{{status: 503}, {reset: true}} {
			t.Run(tc.name+map[bool]string{true: " after a reset", false: " after a 503"}[fail.reset], func(t *testing.T) {
				api := newFaultAPI(t, fail)
				hc, _, _ := resilientClient(t, newClient(t, newTokenServer(t), newClock()),
					oauthclient.Resilience{IdempotencyKeys: tc.addKeys, NoBreaker: true, Backoff: time.Millisecond})
				req, err := http.NewRequest(tc.method, api.URL, tc.body)
				if err != nil {
					t.Fatal(err)
				}
				if tc.key != "" {
					req.Header.Set("Idempotency-Key", tc.key)
				}
				resp, err := hc.Do(req)
				if err == nil {
					resp.Body.Close()
				}
				if api.hits.Load() != tc.wantHits {
					t.Fatalf("%d hits, want %d", api.hits.Load(), tc.wantHits)
				}
				if tc.wantHits == 1 && (err == nil) == fail.reset {
					t.Fatalf("the failed attempt's outcome was not returned: err %v", err)
				}
				if tc.wantHits == 2 && err != nil {
					t.Fatal(err)
				}
				_, keys := api.seen()
				switch {
				case tc.key != "":
					if keys[0] != tc.key || keys[len(keys)-1] != tc.key {
						t.Fatalf("keys %q, want the caller's on every attempt", keys)
					}
				case tc.addKeys && (tc.method == http.MethodPost || tc.method == http.MethodPatch):
					if len(keys[0]) != 38 || keys[0][0] != '"' || keys[0][15] != '4' || keys[len(keys)-1] != keys[0] {
						t.Fatalf("keys %q, want one quoted UUID v4 on every attempt", keys)
					}
					if req.Header.Get("Idempotency-Key") != "" {
						t.Fatal("the caller's request was modified")
					}
				default:
					if keys[0] != "" {
						t.Fatalf("key %q added without IdempotencyKeys", keys[0])
					}
				}
			})
		}
	}
}

// The caller's deadline bounds the whole: a slow answer ends the request
// at the deadline, unrepeated, and no wait starts that cannot end with an
// attempt before it.
func TestResilientHonoursTheDeadline(t *testing.T) {
	t.Run("a slow answer", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		api := newFaultAPI(t, fault{status: 200, hold: release})
		hc, _, w := resilientClient(t, newClient(t, newTokenServer(t), newClock()), oauthclient.Resilience{NoBreaker: true})
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err := send(t, hc, ctx, http.MethodGet, api.URL, "")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v, want the deadline", err)
		}
		if api.hits.Load() != 1 || len(w.all()) != 0 {
			t.Fatalf("%d hits, waits %v: a request past its deadline was retried", api.hits.Load(), w.all())
		}
	})
	t.Run("a pause past the deadline", func(t *testing.T) {
		api := newFaultAPI(t, fault{status: 503, header: map[string]string{"Retry-After": "2"}})
		hc, _, w := resilientClient(t, newClient(t, newTokenServer(t), newClock()), oauthclient.Resilience{NoBreaker: true, MaxWait: time.Minute})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		resp, err := send(t, hc, ctx, http.MethodGet, api.URL, "")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 503 || api.hits.Load() != 1 || len(w.all()) != 0 {
			t.Fatalf("status %d, %d hits, waits %v: want the 503 at once", resp.StatusCode, api.hits.Load(), w.all())
		}
	})
	t.Run("the context ends during the wait", func(t *testing.T) {
		api := newFaultAPI(t, fault{status: 503})
		p := newCC(t, newClient(t, newTokenServer(t), newClock()), "api",
			oauthclient.Sleeping(oauthclient.Resilience{NoBreaker: true}, func(context.Context, time.Duration) error { return context.Canceled }))
		_, err := send(t, &http.Client{Transport: p.Transport(nil)}, context.Background(), http.MethodGet, api.URL, "")
		if !errors.Is(err, context.Canceled) || api.hits.Load() != 1 {
			t.Fatalf("err %v after %d hits, want the wait's error after one", err, api.hits.Load())
		}
	})
}

// Under a full outage the budget caps the retries: the API receives at
// most requests × (1 + RetryBudget) + MinRetries requests.
func TestResilientBudgetCapsRetriesUnderAFullOutage(t *testing.T) {
	const requests, budget, floor = 200, 0.1, 5
	api := newFaultAPI(t)
	api.down = &fault{status: 503}
	hc, _, _ := resilientClient(t, newClient(t, newTokenServer(t), newClock()),
		oauthclient.Resilience{NoBreaker: true, RetryBudget: budget, MinRetries: floor, MaxAttempts: 5})
	for range requests {
		resp, err := send(t, hc, context.Background(), http.MethodGet, api.URL, "")
		if err != nil || resp.StatusCode != 503 {
			t.Fatalf("%v %v", resp, err)
		}
	}
	limit := int64(requests*(1+budget)) + floor
	if hits := api.hits.Load(); hits > limit || hits <= requests {
		t.Fatalf("%d hits for %d requests: want some retries, at most %d", hits, requests, limit)
	}
}

// The breaker opens on failures, refuses without sending (503
// circuit-breaker-open through modules/errors), lets one probe through
// after OpenFor and closes on its success.
func TestResilientBreakerOpensRefusesProbesAndRecovers(t *testing.T) {
	clk := newClock()
	api := newFaultAPI(t)
	api.down = &fault{status: 503}
	hc, _, _ := resilientClient(t, newClient(t, newTokenServer(t), clk),
		oauthclient.Resilience{MaxAttempts: 1, MinRequests: 4, FailureRate: 0.5, OpenFor: 5 * time.Second})
	for range 4 {
		if _, err := send(t, hc, context.Background(), http.MethodGet, api.URL, ""); err != nil {
			t.Fatal(err)
		}
	}
	_, err := send(t, hc, context.Background(), http.MethodGet, api.URL, "")
	var open *oauthclient.CircuitOpenError
	if !errors.As(err, &open) || open.RetryAfter != 5*time.Second || open.Pattern != "api" || open.Host != "127.0.0.1" {
		t.Fatalf("err %v, want a *CircuitOpenError for 127.0.0.1 with 5s to the probe", err)
	}
	if api.hits.Load() != 4 {
		t.Fatalf("%d hits: the refused request was sent", api.hits.Load())
	}
	checkCircuitOpenAnswer(t, err, "5")

	clk.Advance(2 * time.Second)
	_, err = send(t, hc, context.Background(), http.MethodGet, api.URL, "")
	if !errors.As(err, &open) || open.RetryAfter != 3*time.Second {
		t.Fatalf("err %v, want 3s to the probe", err)
	}

	// The probe fails: open again for OpenFor.
	clk.Advance(3 * time.Second)
	if resp, err := send(t, hc, context.Background(), http.MethodGet, api.URL, ""); err != nil || resp.StatusCode != 503 {
		t.Fatalf("probe: %v %v", resp, err)
	}
	if _, err := send(t, hc, context.Background(), http.MethodGet, api.URL, ""); !errors.As(err, &open) || open.RetryAfter != 5*time.Second {
		t.Fatalf("after a failed probe: %v, want open for 5s", err)
	}

	// The API recovers; the next probe, held, keeps every other request
	// out; its success closes the breaker.
	release := make(chan struct{})
	api.mu.Lock()
	api.down, api.script = nil, []fault{{status: 200, hold: release}}
	api.mu.Unlock()
	clk.Advance(5 * time.Second)
	probe := make(chan error, 1)
	go func() {
		_, err := send(t, hc, context.Background(), http.MethodGet, api.URL, "")
		probe <- err
	}()
	eventually(t, "the probe reaches the API", func() bool { return api.hits.Load() == 6 })
	if _, err := send(t, hc, context.Background(), http.MethodGet, api.URL, ""); !errors.As(err, &open) || open.RetryAfter <= 0 {
		t.Fatalf("during the probe: %v, want a refusal with a retry hint", err)
	}
	close(release)
	if err := <-probe; err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if resp, err := send(t, hc, context.Background(), http.MethodGet, api.URL, ""); err != nil || resp.StatusCode != 200 {
			t.Fatalf("after recovery: %v %v", resp, err)
		}
	}
	if api.hits.Load() != 11 {
		t.Fatalf("%d hits, want 11", api.hits.Load())
	}
}

// A 401 invalid_token still gets its fresh token and one repeat, and the
// repeat's 503 its retry.
func TestResilientKeepsTheRepeatAfterInvalidToken(t *testing.T) {
	s := newTokenServer(t)
	c := newClient(t, s, newClock())
	api := newFaultAPI(t, fault{status: 401, header: map[string]string{"WWW-Authenticate": invalidToken}}, fault{status: 503})
	hc, p, _ := resilientClient(t, c, oauthclient.Resilience{NoBreaker: true})
	mustToken(t, p)
	resp, err := send(t, hc, context.Background(), http.MethodGet, api.URL, "")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	auths, _ := api.seen()
	want := []string{"Bearer tok-1", "Bearer tok-2", "Bearer tok-2"}
	if strings.Join(auths, ",") != strings.Join(want, ",") {
		t.Fatalf("the API saw %q, want %q", auths, want)
	}
	if s.count.Load() != 2 {
		t.Fatalf("%d token fetches, want 2", s.count.Load())
	}
}

func TestResilienceRefusesBadSettings(t *testing.T) {
	c := newClient(t, newTokenServer(t), newClock())
	cases := []struct {
		field string
		r     oauthclient.Resilience
	}{
		{"MaxAttempts", oauthclient.Resilience{MaxAttempts: -1}},
		{"RetryBudget", oauthclient.Resilience{RetryBudget: 1.5}},
		{"MinRetries", oauthclient.Resilience{MinRetries: -1}},
		{"Backoff", oauthclient.Resilience{Backoff: -time.Second}},
		{"MaxWait", oauthclient.Resilience{MaxWait: -time.Second}},
		{"AttemptTimeout", oauthclient.Resilience{AttemptTimeout: -time.Second}},
		{"FailureRate", oauthclient.Resilience{FailureRate: -0.1}},
		{"MinRequests", oauthclient.Resilience{MinRequests: -1}},
		{"OpenFor", oauthclient.Resilience{OpenFor: -time.Second}},
		{"Window", oauthclient.Resilience{Window: time.Millisecond}},
		{"MaxHosts", oauthclient.Resilience{MaxHosts: -1}},
	}
	for _, tc := range cases {
		_, err := oauthclient.ClientCredentials("api", oauthclient.WithoutEnv(), oauthclient.WithClient(c), tc.r)
		var ce *oauthclient.ConfigError
		if !errors.As(err, &ce) || ce.Setting != "oauthclient.Resilience."+tc.field {
			t.Errorf("%s: err %v, want a *ConfigError naming it", tc.field, err)
		}
	}
}

// checkCircuitOpenAnswer checks the answer a handler returning err gives:
// 503 circuit-breaker-open with retry_after and Retry-After, naming
// neither the host nor the pattern.
func checkCircuitOpenAnswer(t *testing.T, err error, retryAfter string) {
	t.Helper()
	rec := httptest.NewRecorder()
	svcerrors.New().Render(err, "/billing").Write(rec)
	body := rec.Body.String()
	if rec.Code != 503 || rec.Header().Get("Retry-After") != retryAfter ||
		!strings.Contains(body, `docs/errors.md#circuit-breaker-open"`) || !strings.Contains(body, `"retry_after":`+retryAfter) {
		t.Fatalf("answer %d, Retry-After %q: %s", rec.Code, rec.Header().Get("Retry-After"), body)
	}
	if strings.Contains(body, "127.0.0.1") || strings.Contains(body, `"api"`) {
		t.Fatalf("the answer names the host or the pattern: %s", body)
	}
}

// stubBase answers every request at once, without a connection.
type stubBase struct{}

func (stubBase) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
}

// On the happy path the breakers and the budget add no allocation to a
// request: a resilient pattern's transport allocates what a plain one
// does.
func TestResilienceAddsNoAllocationToARequest(t *testing.T) {
	c := newClient(t, newTokenServer(t), newClock())
	plain, resil := newCC(t, c, "plain"), newCC(t, c, "resil", oauthclient.Resilience{IdempotencyKeys: true})
	mustToken(t, plain)
	mustToken(t, resil)
	req, _ := http.NewRequest(http.MethodGet, "http://api.example/orders", nil)
	allocs := func(rt http.RoundTripper) float64 {
		return testing.AllocsPerRun(200, func() {
			if resp, err := rt.RoundTrip(req); err != nil || resp.StatusCode != 200 {
				t.Fatalf("%v %v", resp, err)
			}
		})
	}
	if a, b := allocs(plain.Transport(stubBase{})), allocs(resil.Transport(stubBase{})); b != a {
		t.Fatalf("%v allocations per request with Resilience, %v without", b, a)
	}
}

// A body whose GetBody fails on the retry is not sent again, empty or
// otherwise: the first answer comes back.
func TestResilientKeepsTheAnswerWhenTheBodyCannotBeHadAgain(t *testing.T) {
	api := newFaultAPI(t, fault{status: 503})
	hc, _, _ := resilientClient(t, newClient(t, newTokenServer(t), newClock()), oauthclient.Resilience{NoBreaker: true})
	req, _ := http.NewRequest(http.MethodPut, api.URL, strings.NewReader("doc"))
	req.GetBody = func() (io.ReadCloser, error) { return nil, errors.New("gone") }
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || api.hits.Load() != 1 {
		t.Fatalf("status %d after %d hits, want the 503 after one", resp.StatusCode, api.hits.Load())
	}
}

// Many callers at once against an API failing every other request: each
// gets an answer or a *CircuitOpenError, nothing else, and the API never
// sees more than the callers' requests plus the budget (-race checks the
// bookkeeping).
func TestResilientUnderConcurrentCallers(t *testing.T) {
	const callers, each, budget, floor = 8, 40, 0.1, 10
	var n atomic.Int64
	var hits atomic.Int64
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if n.Add(1)%2 == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer api.Close()
	clk := newClock()
	hc, _, _ := resilientClient(t, newClient(t, newTokenServer(t), clk),
		oauthclient.Resilience{RetryBudget: budget, MinRetries: floor, MinRequests: 10, FailureRate: 0.9, OpenFor: time.Second})
	var wg sync.WaitGroup
	errs := make(chan error, callers*each)
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				_, err := send(t, hc, context.Background(), http.MethodGet, api.URL, "")
				if err != nil && !errors.As(err, new(*oauthclient.CircuitOpenError)) {
					errs <- err
				}
				clk.Advance(10 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// The window is 10 s; the clock moved 3.2 s: one window's floor.
	if limit := int64(callers*each*(1+budget)) + floor; hits.Load() > limit {
		t.Fatalf("%d hits for %d requests, over %d", hits.Load(), callers*each, limit)
	}
}
