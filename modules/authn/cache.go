package authn

import (
	"hash/maphash"
	"sync"
	"time"
)

// The verification cache maps a token to the principal it verified to.
//
// It is keyed by a keyed 64-bit hash of the token (hash/maphash, seeded
// at random per verifier, so nobody can aim collisions at it) and every
// entry keeps the token itself: a hit is confirmed by comparing the whole
// token, so two tokens can never share an answer, whatever the hash does.
// Entries live until the token's exp plus leeway, or until the key that
// verified them leaves the key set. Memory is bounded by the entry cap;
// when a shard is full, an expired entry or else an arbitrary one goes.

const cacheShards = 16

// evictProbe is how many entries a full shard looks at for an expired one
// before evicting an arbitrary entry.
const evictProbe = 8

type cacheEntry struct {
	token     string
	principal Principal
	until     int64 // Unix nanoseconds after which the entry is stale
	key       *heldKey
}

type cacheShard struct {
	mu sync.RWMutex
	m  map[uint64]*cacheEntry
	_  [40]byte // keeps shards on separate cache lines
}

type verifyCache struct {
	seed     maphash.Seed
	perShard int
	shards   [cacheShards]cacheShard
}

// newVerifyCache returns a cache of about size entries, nil for size 0.
func newVerifyCache(size int) *verifyCache {
	if size <= 0 {
		return nil
	}
	c := &verifyCache{seed: maphash.MakeSeed(), perShard: max(1, (size+cacheShards-1)/cacheShards)}
	for i := range c.shards {
		c.shards[i].m = make(map[uint64]*cacheEntry)
	}
	return c
}

// get returns the principal token verified to, if it is cached, unexpired
// at now and its key still in the set.
func (c *verifyCache) get(token string, now time.Time) (Principal, bool) {
	if c == nil {
		return Principal{}, false
	}
	h := maphash.String(c.seed, token)
	sh := &c.shards[h%cacheShards]
	sh.mu.RLock()
	e := sh.m[h]
	sh.mu.RUnlock()
	if e == nil || e.token != token {
		return Principal{}, false
	}
	if now.UnixNano() >= e.until || e.key.retired.Load() {
		sh.mu.Lock()
		if sh.m[h] == e {
			delete(sh.m, h)
		}
		sh.mu.Unlock()
		return Principal{}, false
	}
	return e.principal, true
}

// put remembers a verified token until until.
func (c *verifyCache) put(token string, p Principal, until time.Time, key *heldKey, now time.Time) {
	if c == nil {
		return
	}
	h := maphash.String(c.seed, token)
	e := &cacheEntry{token: token, principal: p, until: until.UnixNano(), key: key}
	sh := &c.shards[h%cacheShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if _, replacing := sh.m[h]; !replacing && len(sh.m) >= c.perShard {
		sh.evict(now.UnixNano())
	}
	sh.m[h] = e
}

// evict drops one entry: a stale one among the first few it sees, else the
// first it saw (map order is random, so this is random eviction).
func (sh *cacheShard) evict(now int64) {
	var victim uint64
	seen := 0
	for h, e := range sh.m {
		if now >= e.until || e.key.retired.Load() {
			delete(sh.m, h)
			return
		}
		if seen == 0 {
			victim = h
		}
		seen++
		if seen == evictProbe {
			break
		}
	}
	if seen > 0 {
		delete(sh.m, victim)
	}
}

// len counts the entries, for tests.
func (c *verifyCache) len() int {
	if c == nil {
		return 0
	}
	n := 0
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.RLock()
		n += len(sh.m)
		sh.mu.RUnlock()
	}
	return n
}
