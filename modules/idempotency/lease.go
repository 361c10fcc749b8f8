package idempotency

import (
	"context"
	"sync"
	"time"

	"github.com/svckit/svc/modules/store"
)

// A claim holds its key for a lease, so that a key whose request can no
// longer complete or release it (its replica stopped, or the store lost
// the release or the claim's own answer) is free again soon: the lease is
// the [Lease] option, or less when the request's own deadline comes
// first, and the request renews it while its handler runs. A duplicate
// therefore waits at most one lease (or the first request's deadline)
// after the first request ended without completing, never the whole time
// a long handler runs.

// minLease is the shortest lease a claim asks for, when the request's
// deadline is (nearly) past: stores count leases in milliseconds.
const minLease = time.Millisecond

// leaseUntil is the lease of a claim or renewal made now by a request
// whose context ends at deadline (zero: no deadline).
func (c *Component) leaseUntil(deadline time.Time) time.Duration {
	if deadline.IsZero() {
		return c.lease
	}
	return max(minLease, min(c.lease, time.Until(deadline)))
}

// renewal renews one claim every third of the lease while the handler of
// the request that made it runs. It uses no goroutine until the first
// renewal is due (most handlers end before), and stop waits for a renewal
// under way, so none runs once the request ended.
type renewal struct {
	c        *Component
	k        store.Key
	owner    string
	deadline time.Time
	ctx      context.Context
	cancel   context.CancelFunc

	mu      sync.Mutex // held by a renewal under way, and by stop
	timer   *time.Timer
	stopped bool
}

// renewWhileRunning starts renewing k's claim for the request of ctx and
// returns the function that stops it (safe to call more than once). A
// claim that already lasts until the request's deadline is not renewed.
func (c *Component) renewWhileRunning(ctx context.Context, k store.Key, owner string) (stop func()) {
	deadline, _ := ctx.Deadline()
	if !deadline.IsZero() && time.Until(deadline) <= c.lease {
		return func() {}
	}
	// The renewals are the request's own upkeep, not a wait of the
	// request: their context carries none of the request's values (a
	// store bounding the request's total wait would count them).
	rctx, cancel := context.WithCancel(context.Background())
	rn := &renewal{c: c, k: k, owner: owner, deadline: deadline, ctx: rctx, cancel: cancel}
	rn.mu.Lock()
	rn.timer = time.AfterFunc(c.renewEvery(), rn.renew)
	rn.mu.Unlock()
	return rn.stop
}

// renewEvery is how often a running request renews its claim: three
// renewals per lease, so that one lost renewal does not let it lapse.
func (c *Component) renewEvery() time.Duration { return max(minLease, c.lease/3) }

func (rn *renewal) renew() {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if rn.stopped {
		return
	}
	lease := rn.c.leaseUntil(rn.deadline)
	if !rn.deadline.IsZero() && !time.Now().Before(rn.deadline) {
		// The request's deadline passed: its claim ends with it.
		return
	}
	held, err := rn.c.records.Renew(rn.ctx, rn.k, rn.owner, lease)
	if err == nil && !held {
		// The key is no longer this request's (its lease lapsed while
		// the store was unreachable): nothing left to hold.
		return
	}
	// A failed renewal is tried again at the next turn: the lease
	// outlasts two of them.
	rn.timer.Reset(rn.c.renewEvery())
}

func (rn *renewal) stop() {
	rn.cancel() // a renewal under way returns at once
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.stopped = true
	rn.timer.Stop()
}
