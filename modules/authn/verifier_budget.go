package authn

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// ErrBusy is returned by Verify when a fresh verification waited
// VerificationWait for one of the MaxConcurrentVerifications slots without
// getting one, or its request ended while it waited. The gate answers 503
// bulkhead-full with Retry-After, and bans never count it: the token was
// not judged. Test with errors.Is.
var ErrBusy = errors.New("authn: too many token verifications in progress")

// DefaultVerificationWait is how long a fresh verification waits for a
// slot of the budget before Verify gives up with ErrBusy.
const DefaultVerificationWait = 2 * time.Second

// MaxConcurrentVerifications bounds how many fresh (uncached) signature
// verifications run at once; default GOMAXPROCS when the verifier is
// built. The others wait their turn, for at most VerificationWait and
// never past their request's context; then Verify returns ErrBusy. Tokens
// served from the verification cache never count, and neither do tokens
// refused before their signature (malformed, unknown kid, wrong
// algorithm).
//
// Turns are shared fairly between callers: the gate queues each waiting
// verification under its client address, and a freed slot goes to the
// next address in turn, not to the longest queue. A flood of forged
// tokens from a few addresses then takes at most n cores and delays
// everyone else by a few verifications, not by the flood's length. n must
// be at least 1.
func MaxConcurrentVerifications(n int) VerifierOption {
	return func(c *verifierConfig) {
		if n < 1 {
			c.refuse("MaxConcurrentVerifications", "must be at least 1")
			return
		}
		c.maxVerifications = n
	}
}

// VerificationWait sets how long a fresh verification may wait for a slot
// of the budget (see MaxConcurrentVerifications) before Verify returns
// ErrBusy; default DefaultVerificationWait. Waiting costs a parked
// goroutine, not CPU, so a cold start's burst of new tokens is served in
// turn rather than refused. It must be positive.
func VerificationWait(d time.Duration) VerifierOption {
	return func(c *verifierConfig) {
		if d <= 0 {
			c.refuse("VerificationWait", "must be positive")
			return
		}
		c.verificationWait = d
	}
}

// budgetKeyer is what the gate puts in a Verify's context: the key a
// verification that must wait is queued under (the client address). It
// is asked only then, so a cached or uncontended verification never works
// the address out.
type budgetKeyer interface{ budgetKey() string }

type budgetKeyCtxKey struct{}

// withBudgetKey returns ctx carrying k for the verification budget.
func withBudgetKey(ctx context.Context, k budgetKeyer) context.Context {
	return context.WithValue(ctx, budgetKeyCtxKey{}, k)
}

// budgetKeyOf is the fairness key ctx carries; "" (one queue shared by
// every caller) when Verify was called without the gate.
func budgetKeyOf(ctx context.Context) string {
	if k, ok := ctx.Value(budgetKeyCtxKey{}).(budgetKeyer); ok {
		return k.budgetKey()
	}
	return ""
}

// verifyBudget is a counting semaphore whose waiters queue by key and are
// served round-robin between keys, first come first served within one.
// A slot freed while someone waits passes straight to the next waiter.
type verifyBudget struct {
	size int
	wait time.Duration

	mu     sync.Mutex
	free   int // slots nobody holds; never above 0 while live waiters queue
	live   int // waiters neither served nor gone
	queues map[string]*budgetQueue
	turns  []*budgetQueue // queues with waiters, in the order they are served
}

type budgetQueue struct {
	key     string
	waiters []*budgetWaiter
}

type budgetWaiter struct {
	ready chan struct{} // closed when a slot is handed over
	gone  bool          // gave up waiting (under mu): skipped when served
}

func newVerifyBudget(n int, wait time.Duration) *verifyBudget {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	if wait <= 0 {
		wait = DefaultVerificationWait
	}
	return &verifyBudget{size: n, wait: wait, free: n, queues: map[string]*budgetQueue{}}
}

// acquire takes a slot, waiting for one in the queue of ctx's fairness
// key for at most the budget's wait; the caller must release a slot it
// got. It returns an error wrapping ErrBusy when the wait ends or ctx
// does first.
func (b *verifyBudget) acquire(ctx context.Context) error {
	b.mu.Lock()
	if b.free > 0 {
		b.free--
		b.mu.Unlock()
		return nil
	}
	b.mu.Unlock()
	key := budgetKeyOf(ctx) // outside the lock: the gate works the address out here
	b.mu.Lock()
	if b.free > 0 {
		b.free--
		b.mu.Unlock()
		return nil
	}
	w := b.enqueue(key)
	b.mu.Unlock()

	timer := time.NewTimer(b.wait)
	defer timer.Stop()
	var cause error
	select {
	case <-w.ready:
		return nil
	case <-timer.C:
	case <-ctx.Done():
		cause = ctx.Err()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready:
		// Served as the wait ended: the slot is ours.
		return nil
	default:
	}
	w.gone = true
	b.live--
	if cause != nil {
		return fmt.Errorf("%w: the request ended while waiting: %w", ErrBusy, cause)
	}
	return fmt.Errorf("%w: waited %s for one of %d slots (raise authn.VerificationWait, or authn.MaxConcurrentVerifications if the host has idle cores)",
		ErrBusy, b.wait, b.size)
}

// enqueue adds a waiter to key's queue, which joins the turns when it is
// new. b.mu must be held.
func (b *verifyBudget) enqueue(key string) *budgetWaiter {
	w := &budgetWaiter{ready: make(chan struct{})}
	q := b.queues[key]
	if q == nil {
		q = &budgetQueue{key: key}
		b.queues[key] = q
		b.turns = append(b.turns, q)
	}
	q.waiters = append(q.waiters, w)
	b.live++
	return w
}

// release gives a slot back: to the first live waiter of the queue whose
// turn it is (that queue then goes to the back of the turns), or to the
// pool when nobody waits.
func (b *verifyBudget) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.turns) > 0 {
		q := b.turns[0]
		b.turns[0] = nil
		b.turns = b.turns[1:]
		w := q.waiters[0]
		q.waiters[0] = nil
		q.waiters = q.waiters[1:]
		if len(q.waiters) == 0 {
			delete(b.queues, q.key)
		} else {
			b.turns = append(b.turns, q)
		}
		if w.gone {
			continue
		}
		b.live--
		close(w.ready)
		return
	}
	b.free++
}

// held counts the slots taken, for tests.
func (b *verifyBudget) held() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size - b.free
}

// waiting counts the live waiters, for tests.
func (b *verifyBudget) waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.live
}
