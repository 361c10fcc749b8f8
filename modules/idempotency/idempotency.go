// Package idempotency makes writes safe to retry
// (draft-ietf-httpapi-idempotency-key-header). A route marked [Required]
// or [Optional] runs the first request carrying an Idempotency-Key, stores
// its response for a time with a fingerprint of the method, path and body,
// and answers a retry with the stored response and the header
// Idempotent-Replayed: true, without running the handler again:
//
//	r.With(idempotency.Required()).Post("/orders", createOrder)
//
// It runs behind the authentication gate, around the route's handler: a
// request the gate refuses stores nothing under its key. Keys are scoped
// by caller (issuer and subject) for an authenticated request, so one
// caller's key never replays another's response; anonymous routes share
// one scope.
//
// Refusals, in the app's registered error format: 400
// idempotency-key-invalid (missing on a Required route, longer than 255
// characters, or a byte outside printable ASCII), 413
// request-body-too-large (over MaxBodySize, before the handler runs), 422
// idempotency-key-reused (same key, other payload) and 409
// idempotency-in-flight with Retry-After (a duplicate that arrives while
// the first request still runs: the draft's MUST; [Wait] makes it wait for
// the first to finish instead).
package idempotency

import (
	"net/http"
	"time"

	"github.com/svckit/svc/internal/behind"
	"github.com/svckit/svc/modules/store"
)

// HeaderKey is the request header naming the key; HeaderReplayed marks a
// replayed response.
const (
	HeaderKey      = "Idempotency-Key"
	HeaderReplayed = "Idempotent-Replayed"
)

// Defaults of [New].
const (
	defaultTTL         = 24 * time.Hour
	defaultLease       = 30 * time.Second
	defaultWait        = time.Duration(0) // a duplicate in flight answers 409 at once
	defaultMaxBodySize = 1 << 20
)

// Component is the idempotency component: where records live and for how
// long. The markers of a route find it in the request context, where
// [Component.Middleware] puts it; without one they use a process-wide
// in-memory component with the defaults.
type Component struct {
	records     store.Idempotency
	ttl         time.Duration
	lease       time.Duration
	wait        time.Duration
	maxBody     int64
	sharedKeys  bool
	paths       behind.Paths
	pollInitial time.Duration
}

type config struct {
	records          store.Idempotency
	ttl, lease, wait time.Duration
	maxBody          int64
	sharedKeys       bool
	include, exclude []string
}

// Option configures [New].
type Option func(*config)

// Store sets where records are kept (default: a new in-memory store). Use
// one store for every replica, so that a retry that lands on another
// replica is replayed.
func Store(s store.Idempotency) Option { return func(c *config) { c.records = s } }

// TTL is how long a response is replayed (default 24 hours).
func TTL(d time.Duration) Option { return func(c *config) { c.ttl = d } }

// Lease bounds how long a claim outlives the request that made it
// (default 30 seconds), or less when the request's context has a deadline
// that comes first. A running request renews its claim every third of the
// lease, so a handler may run longer; a request that ends without
// completing releases its key at once, and the lease frees a key whose
// release was lost (the replica stopped, the store unreachable). Keep it
// above the longest outage of the store a running request must survive
// (a Redis failover): a claim not renewed for a whole lease lapses, and a
// duplicate may then run.
func Lease(d time.Duration) Option { return func(c *config) { c.lease = d } }

// Wait makes a duplicate that arrives while the first request still runs
// wait up to d for it to finish and replay its response, answering 409
// idempotency-in-flight only when d runs out. By default (0)
// it answers 409 with Retry-After at once, as
// draft-ietf-httpapi-idempotency-key-header requires; waiting holds a
// connection and a goroutine per duplicate for up to d.
func Wait(d time.Duration) Option { return func(c *config) { c.wait = d } }

// MaxBodySize bounds the request body read to fingerprint it (default
// 1 MiB); a larger body answers 413 before the handler
// runs.
func MaxBodySize(bytes int64) Option { return func(c *config) { c.maxBody = bytes } }

// SharedKeys scopes keys to the route set instead of to the caller. An
// authenticated request is then never replayed (the handler runs every
// time), so that one caller cannot receive another's response; anonymous
// requests are replayed as before.
func SharedKeys() Option { return func(c *config) { c.sharedKeys = true } }

// Include limits the component to these paths from the app's root (exact,
// or a prefix ending in /*), also under a mount. Default: every path.
func Include(patterns ...string) Option {
	return func(c *config) { c.include = append(c.include, patterns...) }
}

// Exclude exempts these paths from the app's root from idempotency.
func Exclude(patterns ...string) Option {
	return func(c *config) { c.exclude = append(c.exclude, patterns...) }
}

// New builds the component. It refuses a TTL or Lease that is not
// positive (when set), a negative Wait, a MaxBodySize below 1, and Include/Exclude patterns
// that are not paths.
func New(opts ...Option) (*Component, error) {
	c := config{ttl: defaultTTL, lease: defaultLease, wait: defaultWait, maxBody: defaultMaxBodySize}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	switch {
	case c.ttl <= 0:
		return nil, errorf("idempotency.TTL(%v): must be positive", c.ttl)
	case c.lease <= 0:
		return nil, errorf("idempotency.Lease(%v): must be positive", c.lease)
	case c.wait < 0:
		return nil, errorf("idempotency.Wait(%v): must not be negative (0 answers 409 at once)", c.wait)
	case c.maxBody < 1:
		return nil, errorf("idempotency.MaxBodySize(%d): must be at least 1 byte", c.maxBody)
	}
	paths, err := behind.NewPaths("idempotency", c.include, c.exclude)
	if err != nil {
		return nil, err
	}
	comp := &Component{records: c.records, ttl: c.ttl, lease: c.lease, wait: c.wait, maxBody: c.maxBody,
		sharedKeys: c.sharedKeys, paths: paths, pollInitial: 2 * time.Millisecond}
	if comp.records == nil {
		comp.records = store.NewMemory()
	}
	return comp, nil
}

// Middleware makes c the component of the routes behind it. It does
// nothing else: the routes' markers act at dispatch, after the gate
// admitted the request. Put it in front of the router (fxsvc.Idempotency
// does) so that Include and Exclude see paths from the app's root.
func (c *Component) Middleware(next http.Handler) http.Handler { return slot.Middleware(c, next) }

// slot carries the component of a route to its markers; a route with no
// middleware in front gets the defaults.
var slot = behind.NewSlot(func() (*Component, error) { return New() })

func componentFor(r *http.Request) *Component { return slot.For(r) }
