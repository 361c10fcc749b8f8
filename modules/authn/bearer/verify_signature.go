package bearer

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/svckit/svc/modules/authn/internal/jwsverify"
)

// The signature step checks the token's signature with the keys the key
// step found, under the budget of fresh verifications (below): at most
// MaxConcurrentVerifications run at once, the others wait their turn.
//
// The signature is checked by package jwsverify, the one check a DPoP
// proof's signature goes through too: the standard library's primitives
// over the token's own bytes (see its doc for why not go-jose's JWS).

var errSignature = errors.New("signature does not verify")

// checkSignature tries keys within the verification budget and returns
// the one that verifies s; a *TokenError with ReasonSignature when none
// does, or an error wrapping ErrBusy when no turn came.
func (v *JWTVerifier) checkSignature(ctx context.Context, a alg, keys []*heldKey, s *segments) (*heldKey, error) {
	if err := v.budget.acquire(ctx); err != nil {
		return nil, err
	}
	defer v.budget.release()
	for _, k := range keys {
		if verifySignature(a, k, s.signingInput, s.sig) {
			return k, nil
		}
	}
	return nil, refuse(ReasonSignature, errSignature)
}

// verifySignature checks sig over signingInput with key k, which must fit a.
func verifySignature(a alg, k *heldKey, signingInput string, sig []byte) bool {
	info := &algs[a]
	switch info.family {
	case familyEd25519:
		return jwsverify.Ed25519(k.ed, signingInput, sig)
	case familyRSA:
		return jwsverify.RSA(k.rsa, info.hash, info.pss, signingInput, sig)
	case familyEC:
		return jwsverify.ECDSA(k.ec, info.hash, signingInput, sig)
	}
	return false
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
		wait = defaultVerificationWait
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
	key := fairnessKeyOf(ctx) // outside the lock: the gate works the address out here
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
	return fmt.Errorf("%w: waited %s for one of %d slots (raise bearer.VerificationWait, or bearer.MaxConcurrentVerifications if the host has idle cores)",
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
