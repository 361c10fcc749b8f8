package bans

import (
	"context"
	"time"
)

// Rule is the policy of one Bans, passed to its Store with every failure.
type Rule struct {
	// Name is the Bans' name; a store shared by several Bans keeps their
	// bans apart by it.
	Name string
	// Threshold is how many failures within Window start a ban.
	Threshold int
	// Window is the period failures are counted over.
	Window time.Duration
	// Duration is how long a ban lasts.
	Duration time.Duration
}

// Store keeps the failures and bans of Bans. The default keeps them in
// the process; a store shared by replicas (modules/redisstore) makes a ban
// started through one replica refuse the caller on all of them.
//
// Implementations must be safe for concurrent use.
type Store interface {
	// Banned reports when the ban of addr under the Bans named name ends,
	// if one is known at now. It runs on every request the gate sees, so
	// it must answer from memory and never wait on a network: a shared
	// store keeps a local copy of its ban set, and documents how stale
	// that copy may be.
	Banned(name, addr string, now time.Time) (until time.Time, banned bool)
	// Fail counts one forged token from addr at now under r and starts a
	// ban when the count reaches r.Threshold within r.Window. A caller
	// already banned starts nothing. It runs only on the refusal path of
	// a forged token, so a network round trip is acceptable there; it
	// must return within the store's own timeout whatever ctx says. An
	// error means nothing was started: Bans then fail open.
	Fail(ctx context.Context, addr string, now time.Time, r Rule) (Started, bool, error)
	// Active counts the bans in force at now under the Bans named name.
	Active(name string, now time.Time) int
}
