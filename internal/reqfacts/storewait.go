package reqfacts

import (
	"context"
	"math"
	"time"
)

// The shared store's wait: SVC_REDIS_TIMEOUT promises that no request
// waits on Redis longer than it, whatever the request asks of Redis (a
// ban check, a rate limit, an idempotency claim, its completion). Each
// store call adds its time to the request's State, and the next call of
// the same request gets only what is left: one budget for the request,
// not one per call. Calls run concurrently by one request's goroutines
// add up too; a call made on a context without a State (a background
// job, a renewal the request started) is bounded on its own.

// StoreWait returns how long the request of ctx has waited on the shared
// store so far, and false when ctx carries no State.
func StoreWait(ctx context.Context) (time.Duration, bool) {
	s := From(ctx)
	if s == nil {
		return 0, false
	}
	return time.Duration(s.storeWait.Load()) * time.Microsecond, true
}

// AddStoreWait adds d to what the request of ctx waited on the shared
// store; it does nothing without a State. Safe for concurrent use.
func AddStoreWait(ctx context.Context, d time.Duration) {
	s := From(ctx)
	if s == nil || d <= 0 {
		return
	}
	us := uint32(min(d.Microseconds(), math.MaxUint32))
	for {
		old := s.storeWait.Load()
		sum := uint64(old) + uint64(us)
		if s.storeWait.CompareAndSwap(old, uint32(min(sum, math.MaxUint32))) {
			return
		}
	}
}
