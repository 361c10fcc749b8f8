// Package store holds the shared state of svc's components, behind one
// small interface each: rate-limit budgets ([Rates]), idempotency records
// ([Idempotency]) and cached responses ([Cache]) of the components behind
// the authentication gate, and the gate's own bans ([Bans]), flood budgets
// ([Flood]), DPoP proof identifiers ([Replay]) and shared introspection
// answers ([Introspections]). Every component takes its store with an
// option named Store (ratelimit.Store, bans.Store, dpop.Store, …). Every
// operation is atomic and at most one round trip to a shared store, so that a
// networked implementation (modules/redisstore, one script per operation)
// serves many replicas the same way the in-memory defaults serve one
// process. The package imports nothing but the standard library, so any
// component and any store may import it.
//
// [Memory] is the embedded default of the first three: it implements
// them all, bounds its memory, expires records by TTL lazily (no goroutine
// to stop) and reads time from a clock that tests can replace.
package store

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Key names one record. The parts stay apart so that the in-memory store
// builds no string per request; a networked store joins them with a
// separator no part can hold (for example "svc:<space>:<owner>:<id>" with
// the parts escaped).
//
// Space names what the record belongs to (a rate limit's declaration, an
// idempotent route), Owner the caller's issuer (or a fixed word for
// anonymous callers), ID the subject, client address or client key.
type Key struct {
	Space string
	Owner string
	ID    string
}

// ErrUnavailable wraps a store failure (a backend down, a timeout). The
// components fail closed on it: a request they cannot account for answers
// 500 and the failure is logged, never sent.
var ErrUnavailable = errors.New("store: unavailable")

// Rate is a budget: one request per Interval on average, up to Burst at
// once. Interval must be positive and Burst at least 1.
type Rate struct {
	Interval time.Duration
	Burst    int
}

// RateResult is the outcome of one [Rates.Allow].
type RateResult struct {
	// Allowed is true when the request fits the budget; it was spent.
	Allowed bool
	// Remaining is how many more requests would fit right now.
	Remaining int
	// RetryAfter is how long to wait before a refused request would fit;
	// zero when allowed.
	RetryAfter time.Duration
	// ResetAfter is how long until the whole burst is available again.
	ResetAfter time.Duration
	// Unchecked is true when the store could not check the budget and let
	// the request through (a networked store failing open): Remaining and
	// the durations then describe no budget, and nothing may be told to
	// the caller about one.
	Unchecked bool
}

// Rates keeps rate-limit budgets (GCRA: one timestamp per key).
type Rates interface {
	// Allow spends one request of k's budget when it fits. It is atomic:
	// concurrent calls on one key never overspend. A refused call spends
	// nothing. The record expires once the budget is full again.
	Allow(ctx context.Context, k Key, r Rate) (RateResult, error)
}

// Response is a stored HTTP response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// size approximates the memory a response holds, for the store's bound.
func (r *Response) size() int {
	n := len(r.Body) + 64
	for k, vs := range r.Header {
		n += len(k)
		for _, v := range vs {
			n += len(v) + 16
		}
	}
	return n
}

// ClaimState says what [Idempotency.Claim] found under a key.
type ClaimState int

const (
	// Claimed: no record was there; the caller now owns the key and must
	// Complete or Release it.
	Claimed ClaimState = iota
	// InFlight: another request with the same fingerprint holds the key.
	InFlight
	// Done: a request with the same fingerprint completed; Claim.Response
	// is its stored response.
	Done
	// Mismatch: the key was used with another fingerprint.
	Mismatch
)

// Claim is the outcome of one [Idempotency.Claim].
type Claim struct {
	State ClaimState
	// Response is the stored response when State is Done. It may be
	// shared with the store: read it, never modify it.
	Response *Response
	// Stored is when the response was stored (State Done).
	Stored time.Time
}

// Idempotency keeps the records of idempotent requests. A record is owned
// by the token of the request that claimed it, so that a slow first
// request whose lease ran out cannot overwrite or drop the record of a
// later one.
type Idempotency interface {
	// Claim atomically creates an in-flight record for k owned by owner,
	// held for lease, or reports what is already there.
	Claim(ctx context.Context, k Key, fingerprint, owner string, lease time.Duration) (Claim, error)
	// Complete stores resp under k for ttl when owner still holds k. A
	// record owned by someone else is left alone (no error).
	Complete(ctx context.Context, k Key, owner string, resp Response, ttl time.Duration) error
	// Renew holds k in flight for lease from now when owner still holds
	// it, and reports whether it does: the request that claimed k renews
	// its claim while its handler runs, so that the lease can be short
	// and a claim whose request is gone (its replica stopped, its release
	// lost) frees the key soon.
	Renew(ctx context.Context, k Key, owner string, lease time.Duration) (bool, error)
	// Release drops the in-flight record when owner still holds it.
	Release(ctx context.Context, k Key, owner string) error
}

// Entry is a cached response.
type Entry struct {
	Response Response
	// Stored is when the response was stored; the cache derives Age from it.
	Stored time.Time
}

// Cache keeps responses for a time.
type Cache interface {
	// Get returns the entry under k when one is there and fresh.
	Get(ctx context.Context, k Key) (Entry, bool, error)
	// Set stores e under k for ttl. A store bounded in memory may drop
	// other entries, or refuse e when it alone is over the bound.
	Set(ctx context.Context, k Key, e Entry, ttl time.Duration) error
	// Delete drops the entry under k, if there is one: a write to a
	// resource makes its cached responses stale (RFC 9111 §4.4).
	Delete(ctx context.Context, k Key) error
}
