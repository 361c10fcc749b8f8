package flood

import (
	"context"
	"time"
)

// Rule is the budget of one Limit, passed to its Store with every request.
type Rule struct {
	// Rate is the sustained requests per second allowed per address.
	Rate float64
	// Burst is how many requests an address may send at once.
	Burst int
}

// Store keeps the budgets of a Limit. The default keeps them in the
// process; a store shared by replicas (modules/redisstore) gives an
// address one budget across all of them.
//
// The gate consults a flood limit only on paths that are refused or
// routed to find nothing (a URL no route answers, a request without a
// token on an app with a public route), never on an admitted request to
// a real route, so a network round trip per call is acceptable.
//
// Implementations must be safe for concurrent use.
type Store interface {
	// Allow spends one request of addr's budget under r at now. When the
	// budget is spent ok is false and retryAfter says when the next
	// request would be allowed. It must return within the store's own
	// timeout whatever ctx says. An error means the budget could not be
	// read: the Limit then allows the request (fails open), and the
	// store reports its failure itself.
	Allow(ctx context.Context, addr string, now time.Time, r Rule) (retryAfter time.Duration, ok bool, err error)
}
