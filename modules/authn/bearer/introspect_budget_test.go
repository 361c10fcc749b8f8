package bearer

import (
	"context"
	"crypto"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// slowIntrospection is an introspection endpoint whose requests wait for
// release (or their own end), counting how many are inside at once.
type slowIntrospection struct {
	*httptest.Server
	inside, peak, total atomic.Int32
	entered             chan struct{}
	release             chan struct{}
}

func newSlowIntrospection(t *testing.T) *slowIntrospection {
	s := &slowIntrospection{entered: make(chan struct{}, 64), release: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read first: only then does the server notice the client leave.
		_, _ = io.ReadAll(r.Body)
		s.total.Add(1)
		n := s.inside.Add(1)
		for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
		}
		s.entered <- struct{}{}
		select {
		case <-s.release:
		case <-r.Context().Done():
		}
		s.inside.Add(-1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"active":false}`))
	}))
	// Cleanups run last first: the held requests are released before
	// Close waits for them.
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(s.release) })
	return s
}

// Distinct opaque tokens each cost one introspection request: the
// requests take slots of the verification budget, so
// MaxConcurrentVerifications bounds how many reach the endpoint at once;
// callers beyond it wait their turn and get ErrBusy, as an over-budget
// JWT does; a flight every caller left sends no request.
func TestIntrospectionsTakeTheVerificationBudget(t *testing.T) {
	as := newSlowIntrospection(t)
	v := openVerifier(t, KeySet(testIssuer, testAudience, []crypto.PublicKey{&keys(t).rsa.PublicKey},
		Clock(fixedClock()), Introspect(as.URL+"/introspect", testClient(t, as.URL+"/token")),
		MaxConcurrentVerifications(2), VerificationWait(time.Hour)))

	const callers = 10
	type result struct{ err error }
	results := make(chan result, callers)
	var cancels []context.CancelFunc
	var tokens []string
	for i := 0; i < callers; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		cancels = append(cancels, cancel)
		token := fmt.Sprintf("opaque-token-%02d-abcdefghijklmnop", i)
		tokens = append(tokens, token)
		go func() {
			_, err := v.Verify(ctx, token)
			results <- result{err}
		}()
	}
	<-as.entered
	<-as.entered
	waitFor(t, func() bool { return v.budget.waiting() == callers-2 })
	if n := as.inside.Load(); n != 2 {
		t.Fatalf("%d introspection requests at once, want 2", n)
	}

	// A caller beyond the budget that waits its whole VerificationWait
	// gets ErrBusy, as a JWT does, and no request is sent for it.
	short := openVerifier(t, KeySet(testIssuer, testAudience, []crypto.PublicKey{&keys(t).rsa.PublicKey},
		Clock(fixedClock()), Introspect(as.URL+"/introspect", testClient(t, as.URL+"/token")),
		MaxConcurrentVerifications(1), VerificationWait(time.Millisecond)))
	short.budget.acquire(context.Background()) // the verifier's one slot, held
	_, err := short.Verify(context.Background(), "opaque-token-short-abcdefghijklmnop")
	if !errors.Is(err, ErrBusy) || errors.Is(err, ErrIntrospectionUnavailable) {
		t.Fatalf("over the budget: %v, want ErrBusy", err)
	}
	short.budget.release()

	// Every caller leaves: the queued ones get ErrBusy (their token was not
	// judged), the two asking ErrIntrospectionUnavailable. The queued leave
	// first: were an asking one to leave first, its slot could go to a
	// queued flight whose caller is leaving but has not yet left it.
	asking := func(token string) bool {
		v.intro.flights.mu.Lock()
		defer v.intro.flights.mu.Unlock()
		f := v.intro.flights.m[sha256.Sum256([]byte(token))]
		return f != nil && f.asking.Load()
	}
	var askers []context.CancelFunc
	for i, cancel := range cancels {
		if asking(tokens[i]) {
			askers = append(askers, cancel)
			continue
		}
		cancel()
	}
	if len(askers) != 2 {
		t.Fatalf("%d flights asking, want 2", len(askers))
	}
	waitFor(t, func() bool { return v.budget.waiting() == 0 })
	for _, cancel := range askers {
		cancel()
	}
	var busy, unavailable int
	for i := 0; i < callers; i++ {
		switch r := <-results; {
		case errors.Is(r.err, ErrBusy):
			busy++
		case errors.Is(r.err, ErrIntrospectionUnavailable):
			unavailable++
		default:
			t.Errorf("a caller that left got %v", r.err)
		}
	}
	if busy != callers-2 || unavailable != 2 {
		t.Errorf("%d ErrBusy and %d ErrIntrospectionUnavailable, want %d and 2", busy, unavailable, callers-2)
	}
	// The flights every caller left end, holding and queuing nothing; the
	// requests in progress are cancelled, and none is sent for the others.
	waitFor(t, func() bool { return v.budget.waiting() == 0 && v.budget.held() == 0 })
	waitFor(t, func() bool { return as.inside.Load() == 0 })
	if n, p := as.total.Load(), as.peak.Load(); n != 2 || p != 2 {
		t.Errorf("%d introspection requests, %d at once; want 2 and 2", n, p)
	}
}
