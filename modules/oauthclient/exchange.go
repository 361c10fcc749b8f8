package oauthclient

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"sync"
)

// exchangeCache holds exchanged tokens, one slot per caller token and
// target, bounded in size; the least recently used slot is evicted first.
type exchangeCache struct {
	mu      sync.Mutex
	max     int
	entries map[[sha256.Size]byte]*list.Element
	lru     list.List // of *exchangeEntry, most recent first
}

type exchangeEntry struct {
	key  [sha256.Size]byte
	slot *slot
}

func newExchangeCache(max int) *exchangeCache {
	return &exchangeCache{max: max, entries: make(map[[sha256.Size]byte]*list.Element)}
}

// slot returns the slot for key, creating it (and evicting the least
// recently used one when full).
func (x *exchangeCache) slot(key [sha256.Size]byte) *slot {
	x.mu.Lock()
	defer x.mu.Unlock()
	if e, ok := x.entries[key]; ok {
		x.lru.MoveToFront(e)
		return e.Value.(*exchangeEntry).slot
	}
	for x.lru.Len() >= x.max {
		old := x.lru.Back()
		x.lru.Remove(old)
		delete(x.entries, old.Value.(*exchangeEntry).key)
	}
	s := &slot{}
	x.entries[key] = x.lru.PushFront(&exchangeEntry{key: key, slot: s})
	return s
}

func (x *exchangeCache) len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.lru.Len()
}

// exchangeKey is the SHA-256 digest of the caller token, client ID, grant
// and target, each length-prefixed so that no two tuples share a digest.
// The caller token itself is never kept as a key.
func (p *Pattern) exchangeKey(caller string) [sha256.Size]byte {
	h := sha256.New()
	for _, part := range [...]string{caller, p.client.clientID, p.grant, p.target} {
		writePart(h, part)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

func writePart(h hash.Hash, s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}

// exchangeToken returns the exchanged token for caller. A caller token
// with an exp in the future is cached until the earlier of the issued
// token's expiry and that exp, and never refreshed ahead; any other caller
// token is exchanged on every call and not cached.
func (p *Pattern) exchangeToken(ctx context.Context, caller string) (*token, *slot, error) {
	now := p.client.clock.Now()
	exp, ok := jwtExpiry(caller)
	if !ok || !exp.After(now) {
		t, err := p.slow(ctx, &slot{}, now, fetchSpec{caller: caller})
		return t, nil, err
	}
	s := p.exchange.slot(p.exchangeKey(caller))
	t, err := p.get(ctx, s, fetchSpec{caller: caller, capExpiry: exp})
	return t, s, err
}
