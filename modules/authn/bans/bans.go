// Package bans keeps the callers the authentication gate has banned for
// presenting forged tokens: a forged signature or algorithm, or an opaque
// token the caller's own request had introspected as inactive (a random
// string costs a request to the issuer). Expired JWTs, other audiences
// and keys being rotated never count.
//
//	b := bans.New(bans.Threshold(5), bans.Window(time.Minute), bans.Duration(15*time.Minute))
//	fxsvc.Authn(verifier, authn.Bans(b)), fxsvc.TrustedProxies("10.0.0.0/8")
//
// A banned caller is answered 429 client-banned, with Retry-After, before
// its token is verified, so a forger stops costing signature checks. State
// per address is bounded: past MaxTracked addresses the oldest failures are
// forgotten first, and active bans are kept.
//
// That state lives in this process unless a store.Bans shared by the
// app's replicas is given ([Store]; modules/redisstore keeps it on Redis),
// so that a ban started through one replica refuses the caller on all.
package bans

import (
	"context"
	"time"

	"github.com/svckit/svc/modules/store"
)

// Defaults of a Bans.
const (
	defaultThreshold  = 5
	defaultWindow     = time.Minute
	defaultDuration   = 15 * time.Minute
	defaultMaxTracked = 100_000
)

// Bans counts forged-token failures per client address and bans an address
// that reaches the threshold within the window. Safe for concurrent use.
// Its state lives in a store.Bans: in this process by default, or shared
// by every replica when built with [Store].
type Bans struct {
	name       string
	threshold  int
	window     time.Duration
	duration   time.Duration
	maxTracked int
	now        func() time.Time
	store      store.Bans
	explicit   bool // the store came from the Store option
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

// MaxTracked bounds the addresses the in-memory store remembers. Default
// 100,000. A store given with [Store] keeps its own bound.
func MaxTracked(n int) Option { return func(b *Bans) { b.maxTracked = n } }

// Clock sets the time source (tests). Default time.Now.
func Clock(now func() time.Time) Option { return func(b *Bans) { b.now = now } }

// Store keeps the failures and bans in s instead of this process's
// memory, so that replicas sharing s share one policy (see the store.Bans
// contract). A nil s keeps the in-memory default. It wins over the store
// the gate shares ([Bans.Shared]).
func Store(s store.Bans) Option {
	return func(b *Bans) {
		if s != nil {
			b.store, b.explicit = s, true
		}
	}
}

// New returns Bans with the defaults above, changed by opts. Values that are
// not positive keep their default.
func New(opts ...Option) *Bans {
	b := &Bans{name: "default", threshold: defaultThreshold, window: defaultWindow,
		duration: defaultDuration, maxTracked: defaultMaxTracked, now: time.Now}
	for _, o := range opts {
		o(b)
	}
	if b.threshold <= 0 {
		b.threshold = defaultThreshold
	}
	if b.window <= 0 {
		b.window = defaultWindow
	}
	if b.duration <= 0 {
		b.duration = defaultDuration
	}
	if b.maxTracked <= 0 {
		b.maxTracked = defaultMaxTracked
	}
	if b.name == "" {
		b.name = "default"
	}
	if b.store == nil {
		b.store = newMemory(b.maxTracked)
	}
	return b
}

// Shared returns Bans with b's settings whose state lives in s, or b
// itself when b was built with [Store] (an explicit store wins) or s is nil;
// nil for a nil b. The gate calls it with the store its replicas share
// (authn.SharedStores, which fxredis sets); b and the result do not share
// state.
func (b *Bans) Shared(s store.Bans) *Bans {
	if b == nil || b.explicit || s == nil {
		return b
	}
	c := *b
	c.store, c.explicit = s, true
	return &c
}

// Name names b in telemetry (svc.client_bans.name).
func (b *Bans) Name() string { return b.name }

// rule is the policy b's store applies in Fail.
func (b *Bans) rule() store.BanRule {
	return store.BanRule{Name: b.name, Threshold: b.threshold, Window: b.window, Duration: b.duration}
}

// Banned reports whether addr is banned now, and for how much longer. It
// never waits on a network: a shared store answers from its local copy.
// The gate asks it of each request's client address.
func (b *Bans) Banned(addr string) (remaining time.Duration, banned bool) {
	now := b.now()
	until, ok := b.store.Banned(b.name, addr, now)
	if !ok || !now.Before(until) {
		return 0, false
	}
	return until.Sub(now), true
}

// Fail records one forged token from addr and returns the ban it started,
// if this failure reached the threshold; a caller already banned starts
// nothing new. When the store fails nothing is started: bans fail open,
// and the store reports its failure itself. The gate calls it for each
// forged signature and each inactive token a caller's own request fetched.
func (b *Bans) Fail(addr string) (store.Ban, bool) {
	s, started, err := b.store.Fail(context.Background(), addr, b.now(), b.rule())
	if err != nil {
		return store.Ban{}, false
	}
	return s, started
}

// Active counts the bans in force now (for a shared store: those its
// local copy knows), for the gate's svc.client_bans.active gauge.
func (b *Bans) Active() int { return b.store.Active(b.name, b.now()) }
