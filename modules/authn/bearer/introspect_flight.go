package bearer

import (
	"context"
	"crypto/sha256"
	"sync"
	"sync/atomic"
	"time"
)

// flight is one introspection of a token and the callers waiting for its
// answer: however many ask for one token at once, one request is sent.
// Unlike a plain single flight, it belongs to its callers: when the last
// of them leaves, its context is cancelled, so that a flood of callers
// that give up does not leave requests running at the endpoint.
type flight struct {
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed once val and err are set
	val    answer
	err    error
	// asking is set once the flight holds its slot of the budget: a
	// caller leaving before then was still queued for its turn.
	asking atomic.Bool

	waiters int // the callers waiting, under flights.mu
}

// flights are the introspections in progress, by the SHA-256 of the
// token.
type flights struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]*flight
}

// join returns the flight for key, with the caller counted among its
// waiters; started is true when there was none and the caller must run
// it. The flight's context derives from base (the verifier's, ended by
// Close).
func (fs *flights) join(base context.Context, key [sha256.Size]byte) (f *flight, started bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f = fs.m[key]; f != nil {
		f.waiters++
		return f, false
	}
	if fs.m == nil {
		fs.m = map[[sha256.Size]byte]*flight{}
	}
	f = &flight{done: make(chan struct{}), waiters: 1}
	f.ctx, f.cancel = context.WithCancel(base)
	fs.m[key] = f
	return f, true
}

// leave stops counting a caller among f's waiters; the last to leave an
// unfinished flight cancels it (a finished one is cancelled already), and
// the next caller for the token starts a new one.
func (fs *flights) leave(key [sha256.Size]byte, f *flight) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f.waiters--
	if f.waiters > 0 {
		return
	}
	f.cancel()
	if fs.m[key] == f {
		delete(fs.m, key)
	}
}

// finish records f's outcome for its waiters and forgets it, so that the
// next caller for the token asks the cache first.
func (fs *flights) finish(key [sha256.Size]byte, f *flight, val answer, err error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f.val, f.err = val, err
	close(f.done)
	f.cancel()
	if fs.m[key] == f {
		delete(fs.m, key)
	}
}

// fixedCaller queues a flight's turn under the address of the caller
// that started it, worked out in that caller's goroutine.
type fixedCaller string

func (k fixedCaller) FairnessKey() string { return string(k) }

// IntrospectionHeld is false: the flight was started for a caller the
// gate did not hold.
func (fixedCaller) IntrospectionHeld() (time.Duration, bool) { return 0, false }
