package bearer

import (
	"crypto/sha256"
	"math"
	"time"

	"github.com/maypok86/otter/v2"
)

// introspectCache keeps introspection verdicts under the SHA-256 of the
// token, so the token itself is never held in memory past its request:
// a heap dump of the cache yields no usable token. A verdict is a
// principal or a refusal, each with the instant it goes stale, checked on
// every hit against the verifier's clock. Memory is bounded by bytes as
// the verification cache's is (entryCost, W-TinyLFU eviction), and
// maintenance runs on the caller, so the cache starts no goroutine.
type introspectCache struct {
	m *otter.Cache[[sha256.Size]byte, *introspectEntry]
}

type introspectEntry struct {
	principal Principal
	refusal   *TokenError // nil for an active token
	until     int64       // Unix nanoseconds after which the entry is stale
	cost      uint32
}

// newIntrospectCache returns a cache of at most budget bytes; nil (no
// cache) for a budget of 0.
func newIntrospectCache(budget int64) *introspectCache {
	if budget <= 0 {
		return nil
	}
	return &introspectCache{m: otter.Must(&otter.Options[[sha256.Size]byte, *introspectEntry]{
		MaximumWeight: uint64(budget),
		Weigher: func(_ [sha256.Size]byte, e *introspectEntry) uint32 {
			return max(e.cost, minEntryWeight)
		},
		Executor: func(fn func()) { fn() },
	})}
}

// get returns the verdict cached for key, if it is fresh at now; a stale
// entry is dropped.
func (c *introspectCache) get(key [sha256.Size]byte, now time.Time) (Principal, *TokenError, bool) {
	if c == nil {
		return Principal{}, nil, false
	}
	e, ok := c.m.GetIfPresent(key)
	if !ok {
		return Principal{}, nil, false
	}
	if now.UnixNano() >= e.until {
		c.m.ComputeIfPresent(key, func(old *introspectEntry) (*introspectEntry, otter.ComputeOp) {
			if old == e {
				return nil, otter.InvalidateOp
			}
			return old, otter.CancelOp
		})
		return Principal{}, nil, false
	}
	return e.principal, e.refusal, true
}

// put remembers a verdict until until; one already stale is not stored.
func (c *introspectCache) put(key [sha256.Size]byte, p Principal, refusal *TokenError, until, now time.Time) {
	if c == nil || !now.Before(until) {
		return
	}
	untilNS := int64(math.MaxInt64)
	if until.Before(lastUnixNano) {
		untilNS = until.UnixNano()
	}
	if refusal != nil {
		p = refusal.Principal
	}
	// The key stands where the token would: entryCost counts twice the
	// token's length, which covers the key and the refusal's own fields.
	cost := entryCost(string(make([]byte, sha256.Size)), p)
	c.m.Set(key, &introspectEntry{principal: p, refusal: refusal, until: untilNS, cost: cost})
}
