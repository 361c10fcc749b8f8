// Package flood limits, per client address, the requests the
// authentication gate must route to answer: requests with a valid token to
// URLs no route answers, and, on an app with a public route, requests
// without a token (routed to find out whether a public route serves them).
// Requests to real routes are the route limits' business; a flood spread
// over many addresses is the ingress's.
//
//	fxsvc.Authn(verifier, authn.Flood(flood.New(flood.Rate(10), flood.Burst(20))))
package flood

import (
	"container/list"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Defaults of a Limit.
const (
	DefaultRate       = 10 // requests per second per address
	DefaultBurst      = 20
	DefaultMaxTracked = 100_000
)

// Limit is a token bucket per client address. Safe for concurrent use.
type Limit struct {
	rate       rate.Limit
	burst      int
	maxTracked int
	now        func() time.Time

	mu      sync.Mutex
	buckets map[string]*list.Element // of *bucket
	order   *list.List               // least recently used first
}

type bucket struct {
	addr string
	lim  *rate.Limiter
}

// Option configures a Limit.
type Option func(*Limit)

// Rate is the sustained requests per second allowed per address. Default 10.
func Rate(perSecond float64) Option { return func(l *Limit) { l.rate = rate.Limit(perSecond) } }

// Burst is how many requests an address may send at once. Default 20.
func Burst(n int) Option { return func(l *Limit) { l.burst = n } }

// MaxTracked bounds the addresses remembered; the least recently seen are
// forgotten first (a forgotten address starts with a full bucket). Default
// 100,000.
func MaxTracked(n int) Option { return func(l *Limit) { l.maxTracked = n } }

// Clock sets the time source (tests). Default time.Now.
func Clock(now func() time.Time) Option { return func(l *Limit) { l.now = now } }

// New returns a Limit with the defaults above, changed by opts.
func New(opts ...Option) *Limit {
	l := &Limit{rate: DefaultRate, burst: DefaultBurst, maxTracked: DefaultMaxTracked, now: time.Now}
	for _, o := range opts {
		o(l)
	}
	if l.rate <= 0 {
		l.rate = DefaultRate
	}
	if l.burst <= 0 {
		l.burst = DefaultBurst
	}
	if l.maxTracked <= 0 {
		l.maxTracked = DefaultMaxTracked
	}
	l.buckets = map[string]*list.Element{}
	l.order = list.New()
	return l
}

// Allow spends one request of addr's budget. When it is spent, ok is false
// and retryAfter says when the next request would be allowed.
func (l *Limit) Allow(addr string) (retryAfter time.Duration, ok bool) {
	now := l.now()
	l.mu.Lock()
	var b *bucket
	if el, found := l.buckets[addr]; found {
		b = el.Value.(*bucket)
		l.order.MoveToBack(el)
	} else {
		for l.order.Len() >= l.maxTracked {
			oldest := l.order.Front()
			delete(l.buckets, oldest.Value.(*bucket).addr)
			l.order.Remove(oldest)
		}
		b = &bucket{addr: addr, lim: rate.NewLimiter(l.rate, l.burst)}
		l.buckets[addr] = l.order.PushBack(b)
	}
	l.mu.Unlock()
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}
