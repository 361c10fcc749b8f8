package idempotency_test

import (
	"context"
	"errors"
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

// lossyRecords is a store that does what it is asked but loses the
// answer of the first Claim and the first Release, as a Redis that times
// out or fails over after running a script does.
type lossyRecords struct {
	store.Idempotency
	loseClaim, loseRelease atomic.Bool
	renewals               atomic.Int64
}

var errLost = errors.New("the answer was lost")

func (l *lossyRecords) Claim(ctx context.Context, k store.Key, fp, owner string, lease time.Duration) (store.Claim, error) {
	c, err := l.Idempotency.Claim(ctx, k, fp, owner, lease)
	if l.loseClaim.CompareAndSwap(true, false) {
		return store.Claim{}, errLost
	}
	return c, err
}

func (l *lossyRecords) Renew(ctx context.Context, k store.Key, owner string, lease time.Duration) (bool, error) {
	l.renewals.Add(1)
	return l.Idempotency.Renew(ctx, k, owner, lease)
}

func (l *lossyRecords) Release(ctx context.Context, k store.Key, owner string) error {
	if l.loseRelease.CompareAndSwap(true, false) {
		return errLost // not released
	}
	return l.Idempotency.Release(ctx, k, owner)
}

// post sends a POST /orders with key to h on ctx.
func postOn(ctx context.Context, h http.Handler, key string) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, "POST", "/orders", strings.NewReader("pen"))
	req.Header.Set("Idempotency-Key", key)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// A claim the store made but whose answer was lost (issue 37: a Cluster
// failover or reshard under load) is released: the request is refused,
// and its retry runs the handler instead of meeting 409
// idempotency-in-flight for the whole lease.
func TestAClaimWhoseAnswerWasLostIsReleased(t *testing.T) {
	h := &orders{}
	records := &lossyRecords{Idempotency: store.NewMemory()}
	records.loseClaim.Store(true)
	r := chi.NewRouter()
	r.With(authn.Anonymous, idempotency.Required()).Post("/orders", h.ServeHTTP)
	srv := behindtest.Stack(t, r, newComponent(t, records).Middleware)
	if rec := postOn(context.Background(), srv.Config.Handler, "k"); rec.Code != http.StatusInternalServerError || h.runs.Load() != 0 {
		t.Fatalf("the request whose claim was lost: %d, %d runs, want 500 and no run", rec.Code, h.runs.Load())
	}
	rec := postOn(context.Background(), srv.Config.Handler, "k")
	if rec.Code != http.StatusCreated || h.runs.Load() != 1 {
		t.Fatalf("the retry: %d %s, %d runs: the lost claim held the key", rec.Code, rec.Body, h.runs.Load())
	}
}

// A request that ended without completing, whose release was lost too,
// holds its key no longer than its own deadline: the claim's lease is the
// request's, not the 30 s Lease.
func TestAClaimEndsWithItsRequestsDeadline(t *testing.T) {
	var runs atomic.Int64
	records := &lossyRecords{Idempotency: store.NewMemory()}
	r := chi.NewRouter()
	r.With(authn.Anonymous, idempotency.Required()).Post("/orders", func(w http.ResponseWriter, _ *http.Request) {
		if runs.Add(1) == 1 {
			w.WriteHeader(http.StatusBadGateway) // not stored: the key is released
			return
		}
		w.WriteHeader(http.StatusCreated)
	})
	h := behindtest.Stack(t, r, newComponent(t, records).Middleware).Config.Handler
	records.loseRelease.Store(true)
	const timeout = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	end, _ := ctx.Deadline()
	if rec := postOn(ctx, h, "k"); rec.Code != http.StatusBadGateway {
		t.Fatalf("first: %d", rec.Code)
	}
	// Until the deadline the key is still held: the release was lost.
	if rec := postOn(context.Background(), h, "k"); time.Now().Before(end) && rec.Code != http.StatusConflict {
		t.Fatalf("a retry before the first request's deadline: %d, want 409", rec.Code)
	}
	time.Sleep(time.Until(end) + 20*time.Millisecond)
	if rec := postOn(context.Background(), h, "k"); rec.Code != http.StatusCreated {
		t.Fatalf("a retry after the first request's deadline: %d %s, want 201: the key outlived its request", rec.Code, rec.Body)
	}
}

// A request that runs longer than the lease renews its claim: a duplicate
// sent after several leases still meets it in flight (409) and does not
// run the handler a second time; the renewals stop when it ends.
func TestARunningRequestRenewsItsClaim(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int64
	records := &lossyRecords{Idempotency: store.NewMemory()}
	r := chi.NewRouter()
	r.With(authn.Anonymous, idempotency.Required()).Post("/orders", func(w http.ResponseWriter, _ *http.Request) {
		if runs.Add(1) == 1 {
			close(entered)
			<-release
		}
		w.WriteHeader(http.StatusCreated)
	})
	const lease = 500 * time.Millisecond
	handler := behindtest.Stack(t, r, newComponent(t, records, idempotency.Lease(lease)).Middleware).Config.Handler
	first := make(chan *httptest.ResponseRecorder)
	go func() { first <- postOn(context.Background(), handler, "k") }()
	<-entered
	time.Sleep(3 * lease)
	dup := postOn(context.Background(), handler, "k")
	if dup.Code != http.StatusConflict {
		t.Fatalf("a duplicate three leases into the first run: %d %s, want 409 (the claim lapsed)", dup.Code, dup.Body)
	}
	close(release)
	if rec := <-first; rec.Code != http.StatusCreated {
		t.Fatalf("first: %d", rec.Code)
	}
	if runs.Load() != 1 {
		t.Fatalf("%d runs", runs.Load())
	}
	n := records.renewals.Load()
	if n < 2 {
		t.Fatalf("%d renewals in three leases", n)
	}
	time.Sleep(lease)
	if got := records.renewals.Load(); got != n {
		t.Fatalf("renewals went on after the request ended: %d, then %d", n, got)
	}
}
