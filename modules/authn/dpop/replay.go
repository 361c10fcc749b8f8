package dpop

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/svckit/svc/modules/store"
)

// defaultReplayEntries bounds the default in-memory store: at the
// default window, room for about a thousand proofs a second.
const defaultReplayEntries = 100_000

// errReplayFull is the failure of a [NewMemoryReplay] store that holds
// its bound of unexpired entries: forgetting one would let its proof be
// replayed, so the new proof is refused instead (503).
var errReplayFull = errors.New("dpop: the in-memory replay store is full; raise its bound (NewMemoryReplay) or use a shared store")

// NewMemoryReplay returns a store.Replay in this process's memory holding
// at most maxEntries unexpired identifiers (about 100 bytes each).
// Expired ones are dropped as new ones come, oldest first; no goroutine
// runs. When it is full of unexpired ones it refuses (an error naming the bound)
// rather than forget one. Replicas do not see each other's memory: give
// them a shared store.
func NewMemoryReplay(maxEntries int) store.Replay {
	return &memoryReplay{max: max(1, maxEntries), seen: make(map[string]time.Time), now: time.Now}
}

// memoryReplay keeps the ids in a map and in arrival order, so that the
// expired ones are dropped from the front. A general cache (otter) would
// evict an unexpired id under pressure, and a replay of it would pass.
type memoryReplay struct {
	mu    sync.Mutex
	max   int
	seen  map[string]time.Time // id -> expiry
	order []entry              // arrival order; head is order[head]
	head  int
	now   func() time.Time
}

type entry struct {
	id  string
	exp time.Time
}

func (m *memoryReplay) Remember(_ context.Context, id string, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.expire(now)
	if exp, ok := m.seen[id]; ok && now.Before(exp) {
		return false, nil
	}
	if len(m.seen) >= m.max {
		return false, errReplayFull
	}
	exp := now.Add(ttl)
	m.seen[id] = exp
	m.order = append(m.order, entry{id, exp})
	return true, nil
}

// expire drops the expired entries at the front of the arrival order
// (with one ttl, arrival order is expiry order; an entry with a longer ttl
// only keeps later ones a little longer).
func (m *memoryReplay) expire(now time.Time) {
	for m.head < len(m.order) && !now.Before(m.order[m.head].exp) {
		e := m.order[m.head]
		if exp, ok := m.seen[e.id]; ok && exp.Equal(e.exp) {
			delete(m.seen, e.id)
		}
		m.order[m.head] = entry{}
		m.head++
	}
	if m.head > len(m.order)/2 && m.head > 1024 || m.head == len(m.order) {
		m.order = append(m.order[:0], m.order[m.head:]...)
		m.head = 0
	}
}
