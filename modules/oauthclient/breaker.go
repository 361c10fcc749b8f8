package oauthclient

import (
	"sync"
	"sync/atomic"
	"time"
)

// windowBuckets is how many slices a host's window is cut into: counts
// leave the window one slice at a time.
const windowBuckets = 10

// halfOpenWait is the retry_after a request refused while the probe is
// out is given: the probe's outcome is not known yet.
const halfOpenWait = time.Second

type breakerState uint8

const (
	stateClosed breakerState = iota
	stateOpen
	stateHalfOpen
)

// String is the value of svc.oauthclient.breaker.state.
func (s breakerState) String() string {
	switch s {
	case stateOpen:
		return "open"
	case stateHalfOpen:
		return "half_open"
	}
	return "closed"
}

// bucket counts one slice of a host's window.
type bucket struct {
	slice    int64 // which slice of time it counts; older ones are stale
	answers  int32 // attempts that ended with an answer or a failure
	failures int32 // of those, failures
	requests int32 // requests the callers made (the budget's deposits)
	retries  int32 // retries sent (the budget's withdrawals)
}

// host is the breaker and the retry budget of one host a pattern calls.
// Its bookkeeping is a few integers under a mutex: no allocation.
type host struct {
	addr string // server.address
	port int    // server.port; 0 for the shared entry of hosts over MaxHosts
	cfg  *Resilience

	mu        sync.Mutex
	buckets   [windowBuckets]bucket
	state     breakerState
	openUntil time.Time
	probing   bool // the half-open probe is out
	breaker   bool // false for the shared entry of hosts over MaxHosts

	// notClosed mirrors state != stateClosed, so that a request to a
	// host whose breaker is closed is admitted without the lock.
	notClosed atomic.Bool
}

// admission is what [host.admit] decides for a request.
type admission struct {
	ok    bool
	probe bool          // the request is the half-open probe
	wait  time.Duration // when refused: until the next probe
	from  breakerState  // a change of state it made, from...
	to    breakerState  // ...to (from == to: none)
}

// admit lets a request through the breaker and says whether it is the
// probe. Refused, it says how long until the next probe.
func (h *host) admit(now time.Time) admission {
	if !h.notClosed.Load() {
		return admission{ok: true}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	a := admission{ok: true, from: h.state, to: h.state}
	if h.breaker {
		switch h.state {
		case stateOpen:
			if now.Before(h.openUntil) {
				return admission{wait: h.openUntil.Sub(now), from: h.state, to: h.state}
			}
			h.state, h.probing = stateHalfOpen, true
			a.probe, a.to = true, stateHalfOpen
		case stateHalfOpen:
			if h.probing {
				return admission{wait: halfOpenWait, from: h.state, to: h.state}
			}
			h.probing, a.probe = true, true
		}
	}
	h.notClosed.Store(h.state != stateClosed)
	return a
}

// again asks whether a retry may be sent now: the breaker is closed and
// the budget has room. It withdraws from the budget when it answers yes.
func (h *host) again(now time.Time) (ok bool, budget bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.breaker && h.state != stateClosed {
		return false, true
	}
	w := h.window(now)
	if float64(w.retries+1) > float64(h.cfg.MinRetries)+h.cfg.RetryBudget*float64(w.requests) {
		return false, false
	}
	if b := h.bucket(now); b != nil {
		b.retries++
	}
	return true, true
}

// outcome is how an attempt ended, for the breaker.
type outcome uint8

const (
	outcomeSuccess outcome = iota // an answer below 500
	outcomeFailure                // no answer, or a 5xx
	outcomeUnknown                // cancelled by the caller, or never sent
)

// record counts an attempt's outcome at now, the time its request was
// admitted (one clock read a request), and the request itself in the
// budget when the attempt was its first. It opens the breaker when the
// window's failure rate reaches FailureRate over MinRequests answers, and
// closes or reopens it on the probe's outcome. It returns the change of
// state it made (from == to: none).
func (h *host) record(now time.Time, o outcome, probe, first bool) (from, to breakerState) {
	h.mu.Lock()
	defer h.mu.Unlock()
	defer func() { h.notClosed.Store(h.state != stateClosed) }()
	b := h.bucket(now)
	if first && b != nil {
		b.requests++
	}
	if !h.breaker {
		return stateClosed, stateClosed
	}
	from = h.state
	if probe {
		h.probing = false
		switch o {
		case outcomeSuccess:
			h.state = stateClosed
			// The failures that opened it are history.
			h.buckets = [windowBuckets]bucket{}
		case outcomeFailure:
			h.state, h.openUntil = stateOpen, now.Add(h.cfg.OpenFor)
		}
		return from, h.state
	}
	if h.state != stateClosed || o == outcomeUnknown {
		// An answer to a request admitted before the breaker opened says
		// nothing the probe will not.
		return from, from
	}
	if b == nil {
		return from, from
	}
	b.answers++
	if o == outcomeSuccess {
		// A success never opens a breaker, whatever the rate before it.
		return from, from
	}
	b.failures++
	w := h.window(now)
	if int(w.answers) >= h.cfg.MinRequests && float64(w.failures) >= h.cfg.FailureRate*float64(w.answers) {
		h.state, h.openUntil = stateOpen, now.Add(h.cfg.OpenFor)
	}
	return from, h.state
}

// tripped reports whether the breaker is open or waits for its probe's
// outcome.
func (h *host) tripped() bool { return h.notClosed.Load() }

// slice numbers the slice of the window now falls in.
func (h *host) slice(now time.Time) int64 {
	return now.UnixNano() / int64(h.cfg.Window/windowBuckets)
}

// bucket is now's bucket, emptied first when it held an older slice; nil
// when now's slice has left the window (a request admitted long ago):
// its place holds a newer slice.
func (h *host) bucket(now time.Time) *bucket {
	s := h.slice(now)
	b := &h.buckets[int(uint64(s)%windowBuckets)]
	switch {
	case b.slice > s:
		return nil
	case b.slice < s:
		*b = bucket{slice: s}
	}
	return b
}

// window sums the buckets of the last Window; the caller holds h.mu.
func (h *host) window(now time.Time) (sum bucket) {
	first := h.slice(now) - windowBuckets + 1
	for i := range h.buckets {
		if b := &h.buckets[i]; b.slice >= first {
			sum.answers += b.answers
			sum.failures += b.failures
			sum.requests += b.requests
			sum.retries += b.retries
		}
	}
	return sum
}
