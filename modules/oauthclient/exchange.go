package oauthclient

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
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
func (x *exchangeCache) slot(key [sha256.Size]byte) *slot { return x.get(key, true) }

// lookup returns the slot for key, or nil.
func (x *exchangeCache) lookup(key [sha256.Size]byte) *slot { return x.get(key, false) }

// get finds key's slot and marks it used; without one it makes one when
// create is set, else returns nil.
func (x *exchangeCache) get(key [sha256.Size]byte, create bool) *slot {
	x.mu.Lock()
	defer x.mu.Unlock()
	if e, ok := x.entries[key]; ok {
		x.lru.MoveToFront(e)
		return e.Value.(*exchangeEntry).slot
	}
	if !create {
		return nil
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
// The caller token itself is never kept as a key. The input is assembled
// in a pooled buffer, so a cache hit allocates nothing for it.
func (p *Pattern) exchangeKey(caller string) [sha256.Size]byte {
	bp := keyBuffers.Get().(*[]byte)
	buf := (*bp)[:0]
	for _, part := range [...]string{caller, p.client.clientID, p.grant, p.target} {
		buf = binary.BigEndian.AppendUint64(buf, uint64(len(part)))
		buf = append(buf, part...)
	}
	key := sha256.Sum256(buf)
	clear(buf) // the buffer held a caller token
	if cap(buf) <= 64<<10 {
		*bp = buf
		keyBuffers.Put(bp)
	}
	return key
}

var keyBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// exchangeToken returns the exchanged token for caller. A caller token
// with an exp in the future is cached until the earlier of the issued
// token's expiry and that exp, and never refreshed ahead; any other caller
// token is exchanged on every call and not cached.
func (p *Pattern) exchangeToken(ctx context.Context, caller string) (*token, *slot, error) {
	key := p.exchangeKey(caller)
	if s := p.exchange.lookup(key); s != nil {
		// Only caller tokens with an exp get a slot, and the slot's token
		// already ends by that exp: no need to read the caller token again.
		if t := s.cur.Load(); t != nil && p.client.elapsed() < t.refreshMark {
			return t, s, nil
		}
	}
	now := p.client.clock.Now()
	exp, ok := jwtExpiry(caller)
	if !ok || !exp.After(now) {
		t, err := p.slow(ctx, &slot{}, now, fetchSpec{caller: caller})
		return t, nil, err
	}
	s := p.exchange.slot(key)
	t, err := p.get(ctx, s, fetchSpec{caller: caller, capExpiry: exp})
	return t, s, err
}
