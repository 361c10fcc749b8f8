package authn

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
)

// ErrBusy is returned by Verify when as many fresh verifications as
// MaxConcurrentVerifications allows are running and the queue behind them
// is full. The gate answers 503 bulkhead-full with Retry-After, and bans
// never count it: the token was not judged. Test with errors.Is.
var ErrBusy = errors.New("authn: too many token verifications in progress")

// waitersPerSlot is how many fresh verifications may wait for each slot of
// the budget before more are refused. Waiting costs a parked goroutine,
// not CPU, so a burst of new tokens (say after a restart, with the cache
// empty) is served in turn; only a sustained excess is refused.
const waitersPerSlot = 16

// MaxConcurrentVerifications bounds how many fresh (uncached) signature
// verifications run at once; default GOMAXPROCS when the verifier is
// built. Up to 16 times as many wait for a turn, bounded by their request's
// context; beyond that Verify returns ErrBusy at once. Tokens served from
// the verification cache never count, and neither do tokens refused before
// their signature (malformed, unknown kid, wrong algorithm).
//
// The budget bounds what forged tokens can take: at most n cores'
// worth of signature checking, however expensive the keys, while cached
// tokens keep flowing. n must be at least 1.
func MaxConcurrentVerifications(n int) VerifierOption {
	return func(c *verifierConfig) {
		if n < 1 {
			c.refuse("MaxConcurrentVerifications", "must be at least 1")
			return
		}
		c.maxVerifications = n
	}
}

// verifyBudget is a counting semaphore with a bounded queue.
type verifyBudget struct {
	slots      chan struct{}
	waiting    atomic.Int64
	maxWaiting int64
}

func newVerifyBudget(n int) *verifyBudget {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	return &verifyBudget{slots: make(chan struct{}, n), maxWaiting: int64(n) * waitersPerSlot}
}

// acquire takes a slot, waiting in the queue when there is room in it; the
// caller must release a slot it got. It returns an error wrapping ErrBusy
// when the queue is full or ctx ends while waiting.
func (b *verifyBudget) acquire(ctx context.Context) error {
	select {
	case b.slots <- struct{}{}:
		return nil
	default:
	}
	if b.waiting.Add(1) > b.maxWaiting {
		b.waiting.Add(-1)
		return fmt.Errorf("%w: %d running and %d waiting (raise authn.MaxConcurrentVerifications if the host has idle cores)",
			ErrBusy, cap(b.slots), b.maxWaiting)
	}
	defer b.waiting.Add(-1)
	select {
	case b.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: the request ended while waiting: %w", ErrBusy, ctx.Err())
	}
}

func (b *verifyBudget) release() { <-b.slots }
