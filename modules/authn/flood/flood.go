// Package flood limits, per client address, the requests the
// authentication gate must route to answer: requests with a valid token to
// URLs no route answers, and, on an app with a public route, requests
// without a token (routed to find out whether a public route serves them).
// Opaque tokens that the caller's own requests had introspected as
// inactive spend the same budget: once it is spent, the gate sends no new
// introspection request for that caller until it refills.
// Requests to real routes are the route limits' business; a flood spread
// over many addresses is the ingress's.
//
//	fxsvc.Authn(verifier, authn.Flood(flood.New(flood.Rate(10), flood.Burst(20))))
//
// Budgets live in this process unless a store.Flood shared by the app's
// replicas is given ([Store]; modules/redisstore keeps them on Redis), so
// that an address has one budget across replicas.
package flood

import (
	"context"
	"time"

	"github.com/svckit/svc/modules/store"
)

// Defaults of a Limit.
const (
	defaultRate       = 10 // requests per second per address
	defaultBurst      = 20
	defaultMaxTracked = 100_000
)

// Limit is a token bucket per client address. Safe for concurrent use.
// Its budgets live in a store.Flood: in this process by default, or shared
// by every replica when built with [Store].
type Limit struct {
	rate       float64
	burst      int
	maxTracked int
	now        func() time.Time
	store      store.Flood
	explicit   bool // the store came from the Store option
}

// Option configures a Limit.
type Option func(*Limit)

// Rate is the sustained requests per second allowed per address. Default 10.
func Rate(perSecond float64) Option { return func(l *Limit) { l.rate = perSecond } }

// Burst is how many requests an address may send at once. Default 20.
func Burst(n int) Option { return func(l *Limit) { l.burst = n } }

// MaxTracked bounds the addresses the in-memory store remembers; the least
// recently seen are forgotten first (a forgotten address starts with a
// full bucket). Default 100,000. A store given with [Store] keeps its own
// bound.
func MaxTracked(n int) Option { return func(l *Limit) { l.maxTracked = n } }

// Clock sets the time source (tests). Default time.Now.
func Clock(now func() time.Time) Option { return func(l *Limit) { l.now = now } }

// Store keeps the budgets in s instead of this process's memory, so that
// replicas sharing s give an address one budget. A nil s keeps the
// in-memory default. It wins over the store the gate shares
// ([Limit.Shared]).
func Store(s store.Flood) Option {
	return func(l *Limit) {
		if s != nil {
			l.store, l.explicit = s, true
		}
	}
}

// New returns a Limit with the defaults above, changed by opts.
func New(opts ...Option) *Limit {
	l := &Limit{rate: defaultRate, burst: defaultBurst, maxTracked: defaultMaxTracked, now: time.Now}
	for _, o := range opts {
		o(l)
	}
	if l.rate <= 0 {
		l.rate = defaultRate
	}
	if l.burst <= 0 {
		l.burst = defaultBurst
	}
	if l.maxTracked <= 0 {
		l.maxTracked = defaultMaxTracked
	}
	if l.store == nil {
		l.store = newMemory(l.maxTracked)
	}
	return l
}

// Shared returns a Limit with l's settings whose budgets live in s, or l
// itself when l was built with [Store] (an explicit store wins) or s is nil;
// nil for a nil l. The gate calls it with the store its replicas share
// (authn.SharedStores, which fxredis sets); l and the result do not share
// budgets.
func (l *Limit) Shared(s store.Flood) *Limit {
	if l == nil || l.explicit || s == nil {
		return l
	}
	c := *l
	c.store, c.explicit = s, true
	return &c
}

// rule is the budget l's store applies in Allow.
func (l *Limit) rule() store.FloodRule { return store.FloodRule{Rate: l.rate, Burst: l.burst} }

// Allow spends one request of addr's budget. When it is spent, ok is false
// and retryAfter says when the next request would be allowed. When the
// store fails the request is allowed: flood limits fail open, and the
// store reports its failure itself. The gate calls it for each request it
// limits.
func (l *Limit) Allow(addr string) (retryAfter time.Duration, ok bool) {
	wait, ok, err := l.store.Allow(context.Background(), addr, l.now(), l.rule())
	if err != nil {
		return 0, true
	}
	return wait, ok
}
