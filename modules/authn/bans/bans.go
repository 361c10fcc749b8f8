// Package bans keeps the callers the authentication gate has banned for
// presenting forged tokens: a forged signature or algorithm. Expired
// tokens, other audiences and keys being rotated never count.
//
//	b := bans.New(bans.Threshold(5), bans.Window(time.Minute), bans.Duration(15*time.Minute))
//	fxsvc.Authn(verifier, authn.Bans(b), authn.Trusted("10.0.0.0/8"))
//
// A banned caller is answered 429 client-banned, with Retry-After, before
// its token is verified, so a forger stops costing signature checks. State
// per address is bounded: past MaxTracked addresses the oldest failures are
// forgotten first, and active bans are kept.
package bans

import (
	"container/list"
	"sync"
	"time"
)

// Defaults of a Bans.
const (
	DefaultThreshold  = 5
	DefaultWindow     = time.Minute
	DefaultDuration   = 15 * time.Minute
	DefaultMaxTracked = 100_000
)

// Bans counts forged-token failures per client address and bans an address
// that reaches the threshold within the window. Safe for concurrent use.
type Bans struct {
	name       string
	threshold  int
	window     time.Duration
	duration   time.Duration
	maxTracked int
	now        func() time.Time

	mu      sync.Mutex
	entries map[string]*list.Element // of *entry
	order   *list.List               // least recently failed first
}

type entry struct {
	addr     string
	failures []time.Time // within the window, oldest first
	until    time.Time   // zero when not banned
}

// Option configures Bans.
type Option func(*Bans)

// Name names the ban component in telemetry (svc.client_bans.name). Default "default".
func Name(n string) Option { return func(b *Bans) { b.name = n } }

// Threshold is how many forged tokens within Window start a ban. Default 5.
func Threshold(n int) Option { return func(b *Bans) { b.threshold = n } }

// Window is the period failures are counted over. Default 1 minute.
func Window(d time.Duration) Option { return func(b *Bans) { b.window = d } }

// Duration is how long a ban lasts. Default 15 minutes.
func Duration(d time.Duration) Option { return func(b *Bans) { b.duration = d } }

// MaxTracked bounds the addresses remembered. Default 100,000.
func MaxTracked(n int) Option { return func(b *Bans) { b.maxTracked = n } }

// Clock sets the time source (tests). Default time.Now.
func Clock(now func() time.Time) Option { return func(b *Bans) { b.now = now } }

// New returns Bans with the defaults above, changed by opts. Values that are
// not positive keep their default.
func New(opts ...Option) *Bans {
	b := &Bans{name: "default", threshold: DefaultThreshold, window: DefaultWindow,
		duration: DefaultDuration, maxTracked: DefaultMaxTracked, now: time.Now}
	for _, o := range opts {
		o(b)
	}
	if b.threshold <= 0 {
		b.threshold = DefaultThreshold
	}
	if b.window <= 0 {
		b.window = DefaultWindow
	}
	if b.duration <= 0 {
		b.duration = DefaultDuration
	}
	if b.maxTracked <= 0 {
		b.maxTracked = DefaultMaxTracked
	}
	if b.name == "" {
		b.name = "default"
	}
	b.entries = map[string]*list.Element{}
	b.order = list.New()
	return b
}

// Name is the component's name.
func (b *Bans) Name() string { return b.name }

// Banned reports whether addr is banned now, and for how much longer.
func (b *Bans) Banned(addr string) (remaining time.Duration, banned bool) {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	el, ok := b.entries[addr]
	if !ok {
		return 0, false
	}
	e := el.Value.(*entry)
	if e.until.IsZero() || !now.Before(e.until) {
		return 0, false
	}
	return e.until.Sub(now), true
}

// Started describes a ban that a failure started.
type Started struct {
	Addr     string
	Failures int
	Duration time.Duration
	Until    time.Time
}

// Fail records one forged token from addr. It returns the ban it started,
// if this failure reached the threshold; a caller already banned starts
// nothing new.
func (b *Bans) Fail(addr string) (Started, bool) {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	var e *entry
	if el, ok := b.entries[addr]; ok {
		e = el.Value.(*entry)
		b.order.MoveToBack(el)
	} else {
		b.evict(now)
		e = &entry{addr: addr}
		b.entries[addr] = b.order.PushBack(e)
	}
	if !e.until.IsZero() && now.Before(e.until) {
		return Started{}, false
	}
	cut := 0
	for cut < len(e.failures) && now.Sub(e.failures[cut]) >= b.window {
		cut++
	}
	e.failures = append(e.failures[cut:], now)
	if len(e.failures) < b.threshold {
		return Started{}, false
	}
	e.until = now.Add(b.duration)
	s := Started{Addr: addr, Failures: len(e.failures), Duration: b.duration, Until: e.until}
	e.failures = nil
	return s, true
}

// evictScan bounds how far evict looks for an address that is not banned,
// so that a table full of bans costs no more than that per insert.
const evictScan = 64

// evict makes room for one more address: among the least recently failing
// addresses, one that is not banned goes first; only when none is near the
// front does the oldest ban go.
func (b *Bans) evict(now time.Time) {
	for b.order.Len() >= b.maxTracked {
		victim := b.order.Front()
		n := 0
		for el := victim; el != nil && n < evictScan; el, n = el.Next(), n+1 {
			if e := el.Value.(*entry); e.until.IsZero() || !now.Before(e.until) {
				victim = el
				break
			}
		}
		delete(b.entries, victim.Value.(*entry).addr)
		b.order.Remove(victim)
	}
}

// Active counts the bans in force now.
func (b *Bans) Active() int {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, el := range b.entries {
		if e := el.Value.(*entry); !e.until.IsZero() && now.Before(e.until) {
			n++
		}
	}
	return n
}
