// Package ratelimit limits how often a caller may call a route. It runs
// behind the authentication gate, around the route's handler: a request
// the gate refuses spends no budget, and a request no route answers meets
// no limit.
//
// Declare limits per route or group with the [Limit] marker:
//
//	r.With(ratelimit.Limit("10/s", 20)).Post("/orders", createOrder)
//
// A caller is its issuer and subject when authenticated, else its client
// address (trusted proxies honoured), or what a [KeyBy] function returns.
// Budgets are GCRA (one timestamp per caller), kept in a [store.Rates]:
// in memory by default, shared by replicas with a networked store.
//
// An admitted response carries the IETF RateLimit-Policy and RateLimit
// headers (draft-ietf-httpapi-ratelimit-headers, structured-field form); a
// refused one answers 429 rate-limit-exceeded with Retry-After and
// retry_after, in the app's registered error format.
package ratelimit

import (
	"net/http"

	"github.com/svckit/svc/internal/behind"
	"github.com/svckit/svc/modules/store"
)

// keyFunc names the caller a budget belongs to (KeyBy, KeyByRoute).
type keyFunc = func(r *http.Request) string

// Limiter is the rate-limit component: the store the budgets live in, how
// callers are told apart and which paths it applies to. The [Limit]
// markers of a route find it in the request context, where
// [Limiter.Middleware] puts it; without one they use a process-wide
// in-memory limiter with the defaults.
type Limiter struct {
	rates   store.Rates
	key     keyFunc
	paths   behind.Paths
	metrics limitedCounter
}

type config struct {
	rates            store.Rates
	key              keyFunc
	include, exclude []string
}

// Option configures [New].
type Option func(*config)

// Store sets where budgets are kept (default: a new in-memory store). Use
// one store for every replica that must share budgets.
func Store(s store.Rates) Option { return func(c *config) { c.rates = s } }

// KeyBy tells callers apart with fn instead of by issuer and subject or
// client address: fn names the caller a budget belongs to. It must not
// return a secret: keys reach the store (and, on a networked store, its
// logs).
func KeyBy(fn func(r *http.Request) string) Option { return func(c *config) { c.key = fn } }

// Include limits the component to these paths from the app's root (exact,
// or a prefix ending in /*), also under a mount. Default: every path.
func Include(patterns ...string) Option {
	return func(c *config) { c.include = append(c.include, patterns...) }
}

// Exclude exempts these paths from the app's root (exact, or a prefix
// ending in /*) from every limit.
func Exclude(patterns ...string) Option {
	return func(c *config) { c.exclude = append(c.exclude, patterns...) }
}

// New builds a limiter. It refuses Include/Exclude patterns that are not
// paths.
func New(opts ...Option) (*Limiter, error) {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	l := &Limiter{rates: c.rates, key: c.key}
	if l.rates == nil {
		l.rates = store.NewMemory()
	}
	var err error
	if l.paths, err = behind.NewPaths("ratelimit", c.include, c.exclude); err != nil {
		return nil, err
	}
	return l, nil
}

// Middleware makes l the limiter of the routes behind it. It limits
// nothing itself: the routes' [Limit] markers do, once the route is
// chosen and the gate has admitted the request. Put it in front of the
// router (fxsvc.RateLimits does) so that Include and Exclude see paths
// from the app's root.
func (l *Limiter) Middleware(next http.Handler) http.Handler { return slot.Middleware(l, next) }

// slot carries the limiter of a route to its markers; a route with no
// middleware in front gets the defaults.
var slot = behind.NewSlot(func() (*Limiter, error) { return New() })

func limiterFor(r *http.Request) *Limiter { return slot.For(r) }

// key is the budget a request spends from.
func (l *Limiter) keyOf(r *http.Request, space string, fn keyFunc) store.Key {
	if fn == nil {
		fn = l.key
	}
	if fn != nil {
		return store.Key{Space: space, Owner: "key", ID: fn(r)}
	}
	owner, id, _ := behind.Caller(r)
	return store.Key{Space: space, Owner: owner, ID: id}
}
