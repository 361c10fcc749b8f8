package bans

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/svckit/svc/modules/store"
)

// memory is the in-process store.Bans: one table per Bans, bounded by
// MaxTracked. It shares nothing between replicas.
type memory struct {
	maxTracked int

	mu      sync.Mutex
	entries map[string]*list.Element // of *entry
	order   *list.List               // least recently failed first
}

type entry struct {
	addr     string
	failures []time.Time // within the window, oldest first
	until    time.Time   // zero when not banned
}

func newMemory(maxTracked int) *memory {
	return &memory{maxTracked: maxTracked, entries: map[string]*list.Element{}, order: list.New()}
}

// Banned implements store.Bans.
func (m *memory) Banned(_, addr string, now time.Time) (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.entries[addr]
	if !ok {
		return time.Time{}, false
	}
	e := el.Value.(*entry)
	if e.until.IsZero() || !now.Before(e.until) {
		return time.Time{}, false
	}
	return e.until, true
}

// Fail implements store.Bans: failures are counted over a sliding window.
func (m *memory) Fail(_ context.Context, addr string, now time.Time, r store.BanRule) (store.Ban, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var e *entry
	if el, ok := m.entries[addr]; ok {
		e = el.Value.(*entry)
		m.order.MoveToBack(el)
	} else {
		m.evict(now)
		e = &entry{addr: addr}
		m.entries[addr] = m.order.PushBack(e)
	}
	if !e.until.IsZero() && now.Before(e.until) {
		return store.Ban{}, false, nil
	}
	cut := 0
	for cut < len(e.failures) && now.Sub(e.failures[cut]) >= r.Window {
		cut++
	}
	e.failures = append(e.failures[cut:], now)
	if len(e.failures) < r.Threshold {
		return store.Ban{}, false, nil
	}
	e.until = now.Add(r.Duration)
	s := store.Ban{Addr: addr, Failures: len(e.failures), Duration: r.Duration, Until: e.until}
	e.failures = nil
	return s, true, nil
}

// evictScan bounds how far evict looks for an address that is not banned,
// so that a table full of bans costs no more than that per insert.
const evictScan = 64

// evict makes room for one more address: among the least recently failing
// addresses, one that is not banned goes first; only when none is near the
// front does the oldest ban go.
func (m *memory) evict(now time.Time) {
	for m.order.Len() >= m.maxTracked {
		victim := m.order.Front()
		n := 0
		for el := victim; el != nil && n < evictScan; el, n = el.Next(), n+1 {
			if e := el.Value.(*entry); e.until.IsZero() || !now.Before(e.until) {
				victim = el
				break
			}
		}
		delete(m.entries, victim.Value.(*entry).addr)
		m.order.Remove(victim)
	}
}

// Active implements store.Bans.
func (m *memory) Active(_ string, now time.Time) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, el := range m.entries {
		if e := el.Value.(*entry); !e.until.IsZero() && now.Before(e.until) {
			n++
		}
	}
	return n
}
