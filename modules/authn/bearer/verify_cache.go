package bearer

import (
	"math"
	"time"

	"github.com/maypok86/otter/v2"
)

// The cache step: a token verified before is answered from memory until
// its exp, without the other steps. Verify looks it up first and stores a
// fresh verification last.
//
// The verification cache maps a token to the principal it verified to.
//
// It is keyed by the token itself: the hash table (otter's, hashed with a
// per-process random maphash seed, so nobody can aim collisions at it)
// confirms a hit by comparing the whole token, so two tokens can never
// share an answer, whatever the hash does. Entries live until the token's
// exp plus leeway, or until the key that verified them leaves the key set;
// both are checked on every hit against the verifier's clock, so a stale
// entry is never served, only dropped.
//
// Memory is bounded by bytes, not entries: each entry weighs an estimate of
// what it keeps alive (entryCost), and the cache evicts until the weights
// sum to at most the budget. A count bound let 4,096 dense 8 KiB tokens
// hold ~260 MiB (issue 14 item 7). Eviction is otter's W-TinyLFU: a
// newcomer is admitted only when it has been seen more often than the
// entry it would evict, so a scan of one-off tokens cannot flush the
// callers that come back (issue 14 item 15; random eviction made 10,000
// round-robin callers run at 0.43x one caller's throughput).
//
// Maintenance (eviction, buffer draining) runs on the calling goroutine:
// the cache starts no goroutine, so closing the verifier leaves nothing
// behind. otter's own expiry is not used, because it would need a
// background goroutine and its own clock; our clock is the Clock option.

// Byte costs used by entryCost. They are upper estimates for Go 1.26 on a
// 64-bit platform; TestCacheCostCoversTheHeap checks them against the heap.
const (
	// entryOverhead covers the otter node, cacheEntry, Claims, the token's
	// decoding buffer header, the Raw and scope maps' headers and the
	// allocator's rounding.
	entryOverhead = 768
	// rawMemberCost is one Raw member: a swiss-table slot holding a string
	// and a json.RawMessage (40 B) plus its control byte, at the lowest
	// load a table reaches after growing (7/16 full), plus the name's
	// allocation header and rounding.
	rawMemberCost = 112
	// scopeCost is one scope: a slot of a map[string]struct{} (16 B) and
	// its control byte at the lowest load, plus the name's rounding.
	scopeCost = 56
	// minEntryWeight keeps a weight positive, as otter requires.
	minEntryWeight = 1
)

// lastUnixNano is the latest instant UnixNano can express.
var lastUnixNano = time.Unix(0, math.MaxInt64)

type cacheEntry struct {
	principal Principal
	until     int64 // Unix nanoseconds after which the entry is stale
	key       *heldKey
	cost      uint32 // entryCost(token, principal): its weight
}

type verifyCache struct {
	m *otter.Cache[string, *cacheEntry]
	// longest is the longest token an entry can hold (MaxTokenSize): a
	// longer one misses without being hashed, and the split step refuses
	// it. 0: no bound.
	longest int
}

// newVerifyCache returns a cache whose entries weigh at most budget bytes
// in total; nil (no cache) for a budget of 0.
func newVerifyCache(budget int64) *verifyCache {
	if budget <= 0 {
		return nil
	}
	c := &verifyCache{}
	c.m = otter.Must(&otter.Options[string, *cacheEntry]{
		MaximumWeight: uint64(budget),
		Weigher:       func(_ string, e *cacheEntry) uint32 { return max(e.cost, minEntryWeight) },
		// Run maintenance on the caller: no goroutine outlives the verifier.
		Executor: func(fn func()) { fn() },
	})
	return c
}

// get returns the principal token verified to, if it is cached, unexpired
// at now and its key still in the set. A stale entry is dropped.
func (c *verifyCache) get(token string, now time.Time) (Principal, bool) {
	if c == nil || (c.longest > 0 && len(token) > c.longest) {
		return Principal{}, false
	}
	e, ok := c.m.GetIfPresent(token)
	if !ok {
		return Principal{}, false
	}
	if now.UnixNano() >= e.until || e.key.retired.Load() {
		// A concurrent re-verification may have stored a fresh entry
		// meanwhile; only the stale one goes.
		c.m.ComputeIfPresent(token, func(old *cacheEntry) (*cacheEntry, otter.ComputeOp) {
			if old == e {
				return nil, otter.InvalidateOp
			}
			return old, otter.CancelOp
		})
		return Principal{}, false
	}
	return e.principal, true
}

// put remembers a verified token until until. A token already stale at now
// is not stored.
func (c *verifyCache) put(token string, p Principal, until time.Time, key *heldKey, now time.Time) {
	if c == nil || !now.Before(until) {
		return
	}
	untilNS := int64(math.MaxInt64)
	// UnixNano is undefined past 2262 (exp is accepted up to year 9999):
	// a later instant is kept as the last one it can name, not wrapped
	// into the past.
	if until.Before(lastUnixNano) {
		untilNS = until.UnixNano()
	}
	e := &cacheEntry{principal: p, until: untilNS, key: key, cost: entryCost(token, p)}
	c.m.Set(token, e)
}

// entryCost estimates the bytes an entry keeps alive: the token (the key),
// the decoded payload the Raw claims alias (shorter than the token), every
// Raw member and every scope. It errs high, so the budget bounds the heap.
func entryCost(token string, p Principal) uint32 {
	n := entryOverhead + 2*len(token)
	if p.Claims != nil {
		for name := range p.Claims.Raw {
			n += rawMemberCost + len(name)
		}
		n += 16 * len(p.Claims.Audience)
	}
	for s := range p.Scopes {
		n += scopeCost + len(s)
	}
	for s := range p.Roles {
		n += scopeCost + len(s)
	}
	return uint32(min(n, math.MaxUint32))
}
