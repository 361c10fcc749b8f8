// Package guardhook reaches the side of the gate's guards, a *bans.Bans
// and a *flood.Limit, that only the gate uses: it asks them about each
// request's address. An app builds them and hands them to authn.Bans and
// authn.Flood; it never asks them itself, so packages bans and flood do
// not export these methods.
//
// Packages bans and flood fill the variables in their init. Every package
// that reads them imports bans or flood (it holds the value to pass), so
// they are set before anything reads them. The guards are passed as any
// because this package sits below bans and flood and cannot name their
// types; a value of another type is a defect of svc and panics.
package guardhook

import "time"

var (
	// BansOf returns the gate's side of b, a *bans.Bans (nil for a nil b),
	// its state in shared (a bans.Store) unless b was built with a store
	// of its own or shared is nil.
	BansOf func(b, shared any) Bans

	// FloodOf returns the gate's side of l, a *flood.Limit (nil for a nil
	// l), its budgets in shared (a flood.Store) unless l was built with a
	// store of its own or shared is nil.
	FloodOf func(l, shared any) Flood
)

// Bans is what the gate asks a *bans.Bans.
type Bans interface {
	// Name names the Bans in telemetry (svc.client_bans.name).
	Name() string
	// Banned reports whether addr is banned now, and for how much longer.
	// It never waits on a network: a shared store answers from its local
	// copy.
	Banned(addr string) (remaining time.Duration, banned bool)
	// Fail records one forged token from addr. It returns the ban it
	// started, if this failure reached the threshold; a caller already
	// banned starts nothing new. When the store fails nothing is started:
	// bans fail open, and the store reports its failure itself.
	Fail(addr string) (Ban, bool)
	// Active counts the bans in force now (for a shared store: those its
	// local copy knows).
	Active() int
}

// Ban describes a ban that a failure of an address started.
type Ban struct {
	Failures int           // the failures that reached the threshold
	Duration time.Duration // how long the ban lasts
	Until    time.Time     // when it ends
}

// Flood is what the gate asks a *flood.Limit.
type Flood interface {
	// Allow spends one request of addr's budget. When it is spent, ok is
	// false and retryAfter says when the next request would be allowed.
	// When the store fails the request is allowed: flood limits fail
	// open, and the store reports its failure itself.
	Allow(addr string) (retryAfter time.Duration, ok bool)
}
