package idempotency_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/store"
)

// countingRecords counts what reaches the store and can hold back the
// answer to in-flight claims, so concurrency tests know when duplicates
// are waiting.
type countingRecords struct {
	store.Idempotency
	claims, inFlight atomic.Int64
}

func (c *countingRecords) Claim(ctx context.Context, k store.Key, fp, owner string, lease time.Duration) (store.Claim, error) {
	c.claims.Add(1)
	cl, err := c.Idempotency.Claim(ctx, k, fp, owner, lease)
	if cl.State == store.InFlight {
		c.inFlight.Add(1)
	}
	return cl, err
}

// orders is a handler that counts its runs and answers a new order.
type orders struct{ runs atomic.Int64 }

func (o *orders) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := o.runs.Add(1)
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Location", fmt.Sprintf("/orders/%d", n))
	w.WriteHeader(http.StatusCreated)
	_, _ = fmt.Fprintf(w, `{"id":%d,"item":%q}`, n, body)
}

func newComponent(t *testing.T, records store.Idempotency, opts ...idempotency.Option) *idempotency.Component {
	t.Helper()
	c, err := idempotency.New(append([]idempotency.Option{idempotency.Store(records)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func app(h http.Handler) *chi.Mux {
	r := chi.NewRouter()
	r.With(idempotency.Required()).Post("/orders", h.ServeHTTP)
	r.With(idempotency.Optional()).Post("/notes", h.ServeHTTP)
	r.With(authn.Anonymous, idempotency.Required()).Post("/public", h.ServeHTTP)
	r.With(authn.Require("admin"), idempotency.Required()).Post("/admin", h.ServeHTTP)
	return r
}

func TestAReplayReturnsTheStoredResponseWithoutRunningTheHandler(t *testing.T) {
	h := &orders{}
	srv := behindtest.Stack(t, app(h), newComponent(t, store.NewMemory()).Middleware)
	first := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "pen", "Idempotency-Key", "k-1")
	firstBody := behindtest.Body(t, first)
	if first.StatusCode != 201 || first.Header.Get(idempotency.HeaderReplayed) != "" {
		t.Fatalf("first: %d %v", first.StatusCode, first.Header)
	}
	again := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "pen", "Idempotency-Key", "k-1")
	if body := behindtest.Body(t, again); again.StatusCode != 201 || body != firstBody ||
		again.Header.Get("Location") != "/orders/1" || again.Header.Get(idempotency.HeaderReplayed) != "true" {
		t.Fatalf("replay: %d %v %s", again.StatusCode, again.Header, body)
	}
	if n := h.runs.Load(); n != 1 {
		t.Fatalf("handler ran %d times", n)
	}
	// The same key from another caller is another key.
	bob := behindtest.Do(t, srv, "POST", "/orders", behindtest.Bob, "pen", "Idempotency-Key", "k-1")
	if _ = behindtest.Body(t, bob); bob.StatusCode != 201 || bob.Header.Get(idempotency.HeaderReplayed) != "" || h.runs.Load() != 2 {
		t.Fatalf("bob got alice's response: %v", bob.Header)
	}
}

func TestTheSameKeyWithAnotherPayloadIsRefused(t *testing.T) {
	r := chi.NewRouter()
	h := &orders{}
	r.With(idempotency.Required()).Post("/orders", h.ServeHTTP)
	r.With(idempotency.Required()).Post("/orders/{id}/lines", h.ServeHTTP)
	srv := behindtest.Stack(t, r, newComponent(t, store.NewMemory()).Middleware)
	_ = behindtest.Body(t, behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "pen", "Idempotency-Key", "k"))
	for _, c := range []struct{ path, body string }{{"/orders", "ink"}, {"/orders?x=1", "pen"}, {"/orders/1/lines", "pen"}} {
		behindtest.Problem(t, behindtest.Do(t, srv, "POST", c.path, behindtest.Alice, c.body, "Idempotency-Key", "k"),
			http.StatusUnprocessableEntity, "idempotency-key-reused")
	}
	if h.runs.Load() != 1 {
		t.Fatalf("handler ran %d times", h.runs.Load())
	}
}

func TestInvalidKeys(t *testing.T) {
	h := &orders{}
	srv := behindtest.Stack(t, app(h), newComponent(t, store.NewMemory()).Middleware)
	cases := []struct {
		name    string
		path    string
		headers []string
		status  int
	}{
		{"missing on a required route", "/orders", nil, 400},
		{"256 characters", "/orders", []string{"Idempotency-Key", strings.Repeat("a", 256)}, 400},
		{"a byte outside ASCII", "/orders", []string{"Idempotency-Key", "clé"}, 400},
		{"a control character", "/orders", []string{"Idempotency-Key", "a\tb"}, 400},
		{"empty quoted string", "/orders", []string{"Idempotency-Key", `""`}, 400},
		{"255 characters", "/orders", []string{"Idempotency-Key", strings.Repeat("b", 255)}, 201},
		{"a structured-field string", "/orders", []string{"Idempotency-Key", `"8e03978e-40d5"`}, 201},
		{"missing on an optional route", "/notes", nil, 201},
	}
	for _, c := range cases {
		resp := behindtest.Do(t, srv, "POST", c.path, behindtest.Alice, "x", c.headers...)
		if c.status == 400 {
			behindtest.Problem(t, resp, 400, "idempotency-key-invalid")
			continue
		}
		if _ = behindtest.Body(t, resp); resp.StatusCode != c.status {
			t.Errorf("%s: %d, want %d", c.name, resp.StatusCode, c.status)
		}
	}
	// Two Idempotency-Key lines are refused too.
	req, _ := http.NewRequest("POST", srv.URL+"/orders", strings.NewReader("x"))
	req.Header.Set("Authorization", "Bearer "+behindtest.Alice)
	req.Header.Add("Idempotency-Key", "a")
	req.Header.Add("Idempotency-Key", "b")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	behindtest.Problem(t, resp, 400, "idempotency-key-invalid")
	if n := h.runs.Load(); n != 3 {
		t.Fatalf("handler ran %d times, want 3", n)
	}
}

func TestABodyOverTheBoundIsRefusedBeforeTheHandler(t *testing.T) {
	h := &orders{}
	records := &countingRecords{Idempotency: store.NewMemory()}
	srv := behindtest.Stack(t, app(h), newComponent(t, records, idempotency.MaxBodySize(8)).Middleware)
	behindtest.Problem(t, behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "123456789", "Idempotency-Key", "k"),
		http.StatusRequestEntityTooLarge, "request-body-too-large")
	// Without a length up front (chunked), the bound still holds.
	req, _ := http.NewRequest("POST", srv.URL+"/orders", io.MultiReader(strings.NewReader("12345"), strings.NewReader("67890")))
	req.Header.Set("Authorization", "Bearer "+behindtest.Alice)
	req.Header.Set("Idempotency-Key", "k")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	behindtest.Problem(t, resp, http.StatusRequestEntityTooLarge, "request-body-too-large")
	if h.runs.Load() != 0 || records.claims.Load() != 0 {
		t.Fatalf("handler ran %d times, %d claims", h.runs.Load(), records.claims.Load())
	}
	if resp := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "12345678", "Idempotency-Key", "k"); resp.StatusCode != 201 {
		t.Fatalf("a body at the bound: %d", resp.StatusCode)
	}
}

func TestARefusedRequestStoresNothingUnderItsKey(t *testing.T) {
	h := &orders{}
	records := &countingRecords{Idempotency: store.NewMemory()}
	srv := behindtest.Stack(t, app(h), newComponent(t, records).Middleware)
	for _, c := range []struct {
		method, path, token string
		status              int
	}{
		{"POST", "/orders", "", 401},
		{"POST", "/orders", "forged", 401},
		{"POST", "/admin", behindtest.Alice, 403},
		{"POST", "/nowhere", behindtest.Alice, 404},
		{"PUT", "/orders", behindtest.Alice, 405},
	} {
		resp := behindtest.Do(t, srv, c.method, c.path, c.token, "pen", "Idempotency-Key", "k")
		if _ = behindtest.Body(t, resp); resp.StatusCode != c.status {
			t.Fatalf("%s %s: %d, want %d", c.method, c.path, resp.StatusCode, c.status)
		}
	}
	if n := records.claims.Load(); n != 0 {
		t.Fatalf("refused requests reached the store %d times", n)
	}
	resp := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "pen", "Idempotency-Key", "k")
	if _ = behindtest.Body(t, resp); resp.StatusCode != 201 || resp.Header.Get(idempotency.HeaderReplayed) != "" {
		t.Fatalf("after refusals: %d %v", resp.StatusCode, resp.Header)
	}
}

func TestSharedKeysSkipReplayForAuthenticatedCallers(t *testing.T) {
	h := &orders{}
	srv := behindtest.Stack(t, app(h), newComponent(t, store.NewMemory(), idempotency.SharedKeys()).Middleware)
	for range 2 {
		_ = behindtest.Body(t, behindtest.Do(t, srv, "POST", "/public", behindtest.Alice, "pen", "Idempotency-Key", "k"))
	}
	if n := h.runs.Load(); n != 2 {
		t.Fatalf("an authenticated request was replayed from shared keys: %d runs", n)
	}
	for range 2 {
		_ = behindtest.Body(t, behindtest.Do(t, srv, "POST", "/public", "", "pen", "Idempotency-Key", "k"))
	}
	if n := h.runs.Load(); n != 3 {
		t.Fatalf("the anonymous route was not replayed: %d runs", n)
	}
}

func TestServerErrorsAreNotStored(t *testing.T) {
	var runs atomic.Int64
	r := chi.NewRouter()
	r.With(idempotency.Required()).Post("/flaky", func(w http.ResponseWriter, _ *http.Request) {
		if runs.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusCreated)
	})
	srv := behindtest.Stack(t, r, newComponent(t, store.NewMemory()).Middleware)
	for _, want := range []int{503, 201, 201} {
		resp := behindtest.Do(t, srv, "POST", "/flaky", behindtest.Alice, "x", "Idempotency-Key", "k")
		if _ = behindtest.Body(t, resp); resp.StatusCode != want {
			t.Fatalf("%d, want %d", resp.StatusCode, want)
		}
	}
	if runs.Load() != 2 {
		t.Fatalf("%d runs, want 2", runs.Load())
	}
}

// A handler that panics, or whose client goes away, releases its key: the
// retry runs the handler.
func TestAPanicOrADisconnectReleasesTheKey(t *testing.T) {
	var runs atomic.Int64
	cancelled := make(chan context.CancelFunc, 1)
	r := chi.NewRouter()
	r.With(authn.Anonymous, idempotency.Required()).Post("/{mode}", func(w http.ResponseWriter, r *http.Request) {
		runs.Add(1)
		switch chi.URLParam(r, "mode") {
		case "panic":
			panic("boom")
		case "gone":
			(<-cancelled)()
		}
		w.WriteHeader(http.StatusCreated)
	})
	srv := behindtest.Stack(t, r, newComponent(t, store.NewMemory()).Middleware)
	h := srv.Config.Handler
	send := func(path string, ctx context.Context) *httptest.ResponseRecorder {
		req := httptest.NewRequestWithContext(ctx, "POST", path, strings.NewReader("x"))
		req.Header.Set("Idempotency-Key", "k-"+path)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic did not reach the server")
			}
		}()
		send("/panic", context.Background())
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancelled <- cancel
	send("/gone", ctx)
	if runs.Load() != 2 {
		t.Fatalf("%d runs", runs.Load())
	}
	// Both retries run the handler again: /gone's completes this time.
	cancelled <- func() {}
	if rec := send("/gone", context.Background()); rec.Code != 201 {
		t.Fatalf("retry of /gone: %d", rec.Code)
	}
	func() {
		defer func() { _ = recover() }()
		send("/panic", context.Background())
	}()
	if runs.Load() != 4 {
		t.Fatalf("%d runs: a released key was replayed or stayed held", runs.Load())
	}
}

func TestServeMuxAndPathsFromTheRootUnderAMount(t *testing.T) {
	h := &orders{}
	inner := http.NewServeMux()
	inner.Handle("POST /orders", idempotency.Required()(h))
	inner.Handle("GET /orders", idempotency.Required()(h)) // safe methods pass through
	outer := http.NewServeMux()
	outer.Handle("/v1/", http.StripPrefix("/v1", inner))
	outer.Handle("/legacy/", http.StripPrefix("/legacy", inner))
	srv := behindtest.Stack(t, outer, newComponent(t, store.NewMemory(), idempotency.Exclude("/legacy/*")).Middleware)

	steps := []struct {
		method, path string
		headers      []string
		status       int
		replayed     string
	}{
		{"POST", "/v1/orders", []string{"Idempotency-Key", "k"}, 201, ""},
		{"POST", "/v1/orders", []string{"Idempotency-Key", "k"}, 201, "true"},
		{"POST", "/v1/orders", nil, 400, ""},
		{"GET", "/v1/orders", nil, 201, ""},
		{"POST", "/legacy/orders", nil, 201, ""}, // excluded from the root: no key needed
		{"POST", "/legacy/orders", []string{"Idempotency-Key", "k"}, 201, ""},
	}
	for i, s := range steps {
		resp := behindtest.Do(t, srv, s.method, s.path, behindtest.Alice, "pen", s.headers...)
		_ = behindtest.Body(t, resp)
		if resp.StatusCode != s.status || resp.Header.Get(idempotency.HeaderReplayed) != s.replayed {
			t.Fatalf("step %d %s %s: %d replayed=%q", i, s.method, s.path, resp.StatusCode, resp.Header.Get(idempotency.HeaderReplayed))
		}
	}
}

func TestNewRefusesBadSettings(t *testing.T) {
	for name, opt := range map[string]idempotency.Option{
		"ttl":      idempotency.TTL(0),
		"lease":    idempotency.Lease(-time.Second),
		"wait":     idempotency.Wait(-time.Millisecond),
		"max body": idempotency.MaxBodySize(0),
		"include":  idempotency.Include("orders"),
	} {
		if _, err := idempotency.New(opt); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
