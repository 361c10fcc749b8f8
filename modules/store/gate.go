package store

import (
	"context"
	"time"
)

// The stores below keep the state of the authentication gate and its
// verifier: bans, flood budgets, DPoP proof identifiers and introspection
// answers. They live here, beside [Rates], [Idempotency] and [Cache], so
// that every component takes its store with an option of one name (Store)
// and a shared store (modules/redisstore) implements them without
// importing the components. Their in-memory defaults stay in the packages
// that use them (modules/authn/bans, flood, dpop, bearer).

// BanRule is the policy of one bans.Bans, passed to its [Bans] store with
// every failure.
type BanRule struct {
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

// Ban describes a ban that a failure started.
type Ban struct {
	Addr     string
	Failures int
	Duration time.Duration
	Until    time.Time
}

// Bans keeps the forged-token failures and the bans of a bans.Bans, given
// with bans.Store. The default keeps them in the process; a store shared
// by replicas (modules/redisstore) makes a ban started through one replica
// refuse the caller on all of them.
//
// Implementations must be safe for concurrent use.
type Bans interface {
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
	Fail(ctx context.Context, addr string, now time.Time, r BanRule) (Ban, bool, error)
	// Active counts the bans in force at now under the Bans named name.
	Active(name string, now time.Time) int
}

// FloodRule is the budget of one flood.Limit, passed to its [Flood] store
// with every request.
type FloodRule struct {
	// Rate is the sustained requests per second allowed per address.
	Rate float64
	// Burst is how many requests an address may send at once.
	Burst int
}

// Flood keeps the budgets of a flood.Limit, given with flood.Store. The
// default keeps them in the process; a store shared by replicas
// (modules/redisstore) gives an address one budget across all of them.
//
// The gate consults a flood limit only on paths that are refused or
// routed to find nothing (a URL no route answers, a request without a
// token on an app with a public route), never on an admitted request to
// a real route, so a network round trip per call is acceptable.
//
// Implementations must be safe for concurrent use.
type Flood interface {
	// Allow spends one request of addr's budget under r at now. When the
	// budget is spent ok is false and retryAfter says when the next
	// request would be allowed. It must return within the store's own
	// timeout whatever ctx says. An error means the budget could not be
	// read: the Limit then allows the request (fails open), and the
	// store reports its failure itself.
	Allow(ctx context.Context, addr string, now time.Time, r FloodRule) (retryAfter time.Duration, ok bool, err error)
}

// Replay remembers the identifiers of DPoP proofs for a while, given with
// dpop.Store: the default (dpop.NewMemoryReplay) is this process's only;
// replicas share one (modules/redisstore) so that a proof one accepted is
// a replay at every other.
type Replay interface {
	// Remember records id for ttl and reports whether it was new: false
	// when id is recorded and not yet expired. An error means the check
	// could not run; the dpop.Verifier then refuses the proof (it fails
	// closed). id is a fixed-length base64url hash, never a claim.
	Remember(ctx context.Context, id string, ttl time.Duration) (fresh bool, err error)
}

// Introspections keeps introspection answers that the replicas of a
// service share, given with bearer.Store, so that a token introspected by
// one is not introspected again by the others (modules/redisstore's
// Client.Introspections is one). The store holds bytes under keys the
// verifier chooses and trusts none of them: the verifier authenticates
// every entry it reads (see bearer.Store), so a writer of the store
// cannot make it accept a token.
//
// Get returns the value under key, nil with no error when there is none,
// and an error when the store cannot answer: the verifier then asks the
// endpoint (never failing open). Set stores value under key for ttl; its
// error is ignored. Both must be safe for concurrent use and bound their
// own wait; a store logs and counts its own failures.
type Introspections interface {
	Get(ctx context.Context, key string) ([]byte, error)
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
}
