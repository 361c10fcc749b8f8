package idempotency_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/store"
)

// gated holds the first run until the test lets it go.
type gated struct {
	orders
	entered chan struct{}
	release chan struct{}
}

func (g *gated) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.entered != nil {
		g.entered <- struct{}{}
	}
	<-g.release
	g.orders.ServeHTTP(w, r)
}

// 100 concurrent duplicates of one key run the handler once. The first
// run is held until every other request has found the key in flight, so
// they all overlap whatever the scheduler does.
func TestOneHundredConcurrentDuplicatesRunTheHandlerOnce(t *testing.T) {
	h := &gated{release: make(chan struct{})}
	records := &countingRecords{Idempotency: store.NewMemory()}
	r := chi.NewRouter()
	r.With(idempotency.Required()).Post("/orders", h.ServeHTTP)
	srv := behindtest.Stack(t, r, newComponent(t, records, idempotency.Wait(time.Hour)).Middleware)
	handler := srv.Config.Handler

	const n = 100
	recs := make([]*httptest.ResponseRecorder, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req := httptest.NewRequest("POST", "/orders", strings.NewReader("pen"))
			req.Header.Set("Authorization", "Bearer "+behindtest.Alice)
			req.Header.Set("Idempotency-Key", "same")
			recs[i] = httptest.NewRecorder()
			handler.ServeHTTP(recs[i], req)
		})
	}
	for records.inFlight.Load() < n-1 {
		time.Sleep(time.Millisecond)
	}
	close(h.release)
	wg.Wait()
	if runs := h.runs.Load(); runs != 1 {
		t.Fatalf("the handler ran %d times", runs)
	}
	replayed := 0
	for _, rec := range recs {
		if rec.Code != 201 || rec.Body.String() != `{"id":1,"item":"pen"}` {
			t.Fatalf("%d %s", rec.Code, rec.Body.String())
		}
		if rec.Header().Get(idempotency.HeaderReplayed) == "true" {
			replayed++
		}
	}
	if replayed != n-1 {
		t.Fatalf("%d replays, want %d", replayed, n-1)
	}
}

func TestADuplicateThatWaitsTooLongGets409(t *testing.T) {
	h := &gated{entered: make(chan struct{}, 1), release: make(chan struct{})}
	r := chi.NewRouter()
	r.With(idempotency.Required()).Post("/orders", h.ServeHTTP)
	srv := behindtest.Stack(t, r, newComponent(t, store.NewMemory(), idempotency.Wait(20*time.Millisecond)).Middleware)
	first := make(chan *http.Response)
	go func() {
		first <- behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "pen", "Idempotency-Key", "k")
	}()
	<-h.entered // the first holds the key
	dup := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "pen", "Idempotency-Key", "k")
	if dup.Header.Get("Retry-After") != "1" {
		t.Fatalf("Retry-After %q", dup.Header.Get("Retry-After"))
	}
	p := behindtest.Problem(t, dup, http.StatusConflict, "idempotency-in-flight")
	if p["retry_after"] != float64(1) {
		t.Fatalf("retry_after %v", p["retry_after"])
	}
	close(h.release)
	if resp := <-first; resp.StatusCode != 201 {
		t.Fatalf("first: %d", resp.StatusCode)
	}
}

// By default a duplicate that arrives while the first request still runs
// answers 409 idempotency-in-flight with Retry-After at once
// (draft-ietf-httpapi-idempotency-key-header: MUST), without waiting and
// without running the handler; once the first is done the retry replays it.
func TestADuplicateInFlightGets409AtOnceByDefault(t *testing.T) {
	h := &gated{entered: make(chan struct{}, 1), release: make(chan struct{})}
	r := chi.NewRouter()
	r.With(idempotency.Required()).Post("/orders", h.ServeHTTP)
	srv := behindtest.Stack(t, r, newComponent(t, store.NewMemory()).Middleware)
	first := make(chan *http.Response)
	go func() {
		first <- behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "pen", "Idempotency-Key", "k")
	}()
	<-h.entered // the first holds the key, and will until released
	dup := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "pen", "Idempotency-Key", "k")
	if dup.Header.Get("Retry-After") != "1" {
		t.Fatalf("Retry-After %q", dup.Header.Get("Retry-After"))
	}
	behindtest.Problem(t, dup, http.StatusConflict, "idempotency-in-flight")
	close(h.release)
	if resp := <-first; resp.StatusCode != 201 {
		t.Fatalf("first: %d", resp.StatusCode)
	}
	again := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "pen", "Idempotency-Key", "k")
	if again.StatusCode != 201 || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the retry after the first finished: %d %v", again.StatusCode, again.Header)
	}
}

// A negative Wait is refused, naming the option; zero is the default.
func TestWaitMustNotBeNegative(t *testing.T) {
	if _, err := idempotency.New(idempotency.Wait(-time.Second)); err == nil || !strings.Contains(err.Error(), "idempotency.Wait") {
		t.Fatalf("New(Wait(-1s)) = %v", err)
	}
	if _, err := idempotency.New(idempotency.Wait(0)); err != nil {
		t.Fatalf("New(Wait(0)) = %v", err)
	}
}
