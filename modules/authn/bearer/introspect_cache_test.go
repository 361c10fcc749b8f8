package bearer

import (
	"context"
	"crypto"
	"crypto/sha256"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Issue 20: an active answer is reused until exp plus leeway, at most
// IntrospectionTTL; an inactive one for 10 s. Moved by a hand-driven clock.
func TestIntrospectionCacheLifetimes(t *testing.T) {
	tests := []struct {
		name   string
		answer func() map[string]any
		ttl    time.Duration // 0: the default
		fresh  time.Duration // still answered from the cache
		stale  time.Duration // asked again
	}{
		{name: "exp far: the default TTL", answer: activeAnswer, fresh: 2*time.Minute - time.Second, stale: 2 * time.Minute},
		{name: "exp far: a TTL of 30 s", answer: activeAnswer, ttl: 30 * time.Second, fresh: 29 * time.Second, stale: 30 * time.Second},
		{name: "exp near: exp plus leeway", answer: func() map[string]any {
			a := activeAnswer()
			a["exp"] = testNow.Add(40 * time.Second).Unix()
			return a
		}, fresh: 69 * time.Second, stale: 70 * time.Second},
		{name: "inactive: 10 s", answer: func() map[string]any { return map[string]any{"active": false} },
			fresh: 9 * time.Second, stale: 10 * time.Second},
		{name: "refused claims: 10 s", answer: func() map[string]any {
			a := activeAnswer()
			a["aud"] = "https://other.example"
			return a
		}, fresh: 9 * time.Second, stale: 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newIntrospectionServer(t, tt.answer())
			clock := newMovableClock()
			opts := []VerifierOption{clock.option()}
			if tt.ttl != 0 {
				opts = append(opts, IntrospectionTTL(tt.ttl))
			}
			v := introspectingVerifier(t, srv, opts...)
			_, first := v.Verify(context.Background(), opaqueToken)
			clock.add(tt.fresh)
			_, again := v.Verify(context.Background(), opaqueToken)
			if n := srv.requests.Load(); n != 1 {
				t.Fatalf("after %s: %d requests, want 1", tt.fresh, n)
			}
			if fmt.Sprint(first) != fmt.Sprint(again) {
				t.Fatalf("the cached verdict differs: %v, then %v", first, again)
			}
			clock.add(tt.stale - tt.fresh)
			v.Verify(context.Background(), opaqueToken)
			if n := srv.requests.Load(); n != 2 {
				t.Fatalf("after %s: %d requests, want 2", tt.stale, n)
			}
		})
	}
}

// A failure is not cached: the next request asks again.
func TestIntrospectionFailureIsNotCached(t *testing.T) {
	srv := newIntrospectionServer(t, activeAnswer())
	srv.setStatus(503)
	v := introspectingVerifier(t, srv)
	if _, err := v.Verify(context.Background(), opaqueToken); !errors.Is(err, ErrIntrospectionUnavailable) {
		t.Fatal(err)
	}
	srv.setStatus(200)
	if _, err := v.Verify(context.Background(), opaqueToken); err != nil {
		t.Fatal(err)
	}
	if n := srv.requests.Load(); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}

// Issue 20: 1,000 concurrent callers of one cold token cause one request.
func TestIntrospectionSingleFlight(t *testing.T) {
	srv := newIntrospectionServer(t, activeAnswer())
	hold := make(chan struct{})
	srv.mu.Lock()
	srv.hold = hold
	srv.mu.Unlock()
	v := introspectingVerifier(t, srv)
	const callers = 1000
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for range callers {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := v.Verify(ctx, opaqueToken); err != nil {
				errs <- err
			}
		})
	}
	// The request is held until it arrived; callers coming later either
	// join the flight or find the cached answer.
	deadline := time.Now().Add(10 * time.Second)
	for srv.requests.Load() == 0 && time.Now().Before(deadline) {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	close(hold)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := srv.requests.Load(); n != 1 {
		t.Fatalf("%d requests for %d callers, want 1", n, callers)
	}
}

// A caller whose request ends stops waiting; another still waiting gets
// the answer, and the flight caches it. A flight every caller left is
// cancelled (its request does not outlive them): the next caller starts
// another.
func TestIntrospectionWaiterLeavesOnItsContext(t *testing.T) {
	srv := newIntrospectionServer(t, activeAnswer())
	hold := make(chan struct{})
	srv.mu.Lock()
	srv.hold = hold
	srv.mu.Unlock()
	v := introspectingVerifier(t, srv)
	waiters := func(token string) int {
		v.intro.flights.mu.Lock()
		defer v.intro.flights.mu.Unlock()
		if f := v.intro.flights.m[sha256.Sum256([]byte(token))]; f != nil {
			return f.waiters
		}
		return 0
	}
	ctx, cancel := context.WithCancel(context.Background())
	left, stayed := make(chan error, 1), make(chan error, 1)
	go func() { _, err := v.Verify(ctx, opaqueToken); left <- err }()
	waitFor(t, func() bool { return srv.requests.Load() == 1 })
	go func() { _, err := v.Verify(context.Background(), opaqueToken); stayed <- err }()
	waitFor(t, func() bool { return waiters(opaqueToken) == 2 })
	cancel()
	select {
	case err := <-left:
		if !errors.Is(err, ErrIntrospectionUnavailable) {
			t.Fatalf("a cancelled caller got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled caller kept waiting")
	}
	close(hold)
	if err := <-stayed; err != nil {
		t.Fatalf("the caller that stayed: %v", err)
	}
	if _, err := v.Verify(context.Background(), opaqueToken); err != nil || srv.requests.Load() != 1 {
		t.Fatalf("after the flight: %v, %d requests", err, srv.requests.Load())
	}

	// Alone, the caller that leaves ends the flight.
	const other = "opaque-Other_0123456789abcdefghijklmnop"
	hold = make(chan struct{})
	srv.mu.Lock()
	srv.hold = hold
	srv.mu.Unlock()
	ctx, cancel = context.WithCancel(context.Background())
	go func() { _, err := v.Verify(ctx, other); left <- err }()
	waitFor(t, func() bool { return srv.requests.Load() == 2 })
	cancel()
	if err := <-left; !errors.Is(err, ErrIntrospectionUnavailable) {
		t.Fatalf("a cancelled caller got %v", err)
	}
	waitFor(t, func() bool { return waiters(other) == 0 && v.budget.held() == 0 })
	close(hold)
	if _, err := v.Verify(context.Background(), other); err != nil || srv.requests.Load() != 3 {
		t.Fatalf("after the cancelled flight: %v, %d requests (want a new one)", err, srv.requests.Load())
	}
}

// The cache is bounded by bytes and holds hashes, never tokens.
func TestIntrospectionCacheBoundedAndHashed(t *testing.T) {
	srv := newIntrospectionServer(t, activeAnswer())
	const budget = 64 << 10
	v := introspectingVerifier(t, srv, CacheBytes(budget))
	for i := range 2000 {
		if _, err := v.Verify(context.Background(), fmt.Sprintf("opaque-%04d-%s", i, strings.Repeat("x", 40))); err != nil {
			t.Fatal(err)
		}
	}
	if w := v.intro.cache.weight(); w > budget || w == 0 {
		t.Fatalf("cache weight %d, budget %d", w, budget)
	}
	if n := v.intro.cache.len(); n == 0 || n >= 2000 {
		t.Fatalf("%d entries for 2000 tokens", n)
	}
	// The keys are SHA-256 sums by type ([sha256.Size]byte): no entry
	// can hold a token. One token's sum finds its entry.
	v = introspectingVerifier(t, srv)
	v.Verify(context.Background(), opaqueToken)
	if _, _, ok := v.intro.cache.get(sha256.Sum256([]byte(opaqueToken)), testNow); !ok {
		t.Fatal("the token's hash finds no entry")
	}
}

// CacheBytes(0) turns the cache off: every request asks.
func TestIntrospectionWithoutCache(t *testing.T) {
	srv := newIntrospectionServer(t, activeAnswer())
	v := introspectingVerifier(t, srv, CacheBytes(0))
	for range 3 {
		if _, err := v.Verify(context.Background(), opaqueToken); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.requests.Load(); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
}

// Close ends an introspection in flight.
func TestIntrospectionEndsWithClose(t *testing.T) {
	srv := newIntrospectionServer(t, activeAnswer())
	hold := make(chan struct{})
	defer close(hold)
	srv.mu.Lock()
	srv.hold = hold
	srv.mu.Unlock()
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&keys(t).rsa.PublicKey},
		Introspect(srv.URL+"/introspect", testClient(t, srv.URL+"/token")))
	if err := v.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := v.Verify(context.Background(), opaqueToken); done <- err }()
	for srv.requests.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	if err := v.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrIntrospectionUnavailable) {
			t.Fatalf("got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close left the introspection running")
	}
}

// Issue 37 item 11: only the caller whose request fetched an inactive
// answer from the endpoint is told so (ErrInactiveFetched, which the gate
// counts against it); a caller that waited for the same flight, and one
// answered from the cache, are refused alike but cost nothing and count
// for nothing.
func TestOnlyTheCallerThatAskedPaysForAnInactiveAnswer(t *testing.T) {
	srv := newIntrospectionServer(t, map[string]any{"active": false})
	hold := make(chan struct{})
	srv.mu.Lock()
	srv.hold = hold
	srv.mu.Unlock()
	v := introspectingVerifier(t, srv)
	first := make(chan error, 1)
	go func() { _, err := v.Verify(context.Background(), opaqueToken); first <- err }()
	deadline := time.Now().Add(10 * time.Second)
	for srv.requests.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	joined := make(chan error, 1)
	go func() { _, err := v.Verify(context.Background(), opaqueToken); joined <- err }()
	for waiters(v) < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	close(hold)
	_, cached := v.Verify(context.Background(), opaqueToken)
	for name, err := range map[string]error{"the caller that asked": <-first, "a caller that joined": <-joined, "a cache hit": cached} {
		if reasonOf(t, err) != ReasonInactive || !errors.Is(err, errInactive) {
			t.Fatalf("%s: %v", name, err)
		}
		if asked := errors.Is(err, ErrInactiveFetched); asked != (name == "the caller that asked") {
			t.Fatalf("%s: counted against it %v", name, asked)
		}
	}
	if n := srv.requests.Load(); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

// waiters counts the callers waiting for v's introspection flights.
func waiters(v *JWTVerifier) int {
	v.intro.flights.mu.Lock()
	defer v.intro.flights.mu.Unlock()
	n := 0
	for _, f := range v.intro.flights.m {
		n += f.waiters
	}
	return n
}
