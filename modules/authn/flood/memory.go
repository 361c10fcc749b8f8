package flood

import (
	"container/list"
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/svckit/svc/modules/store"
)

// memory is the in-process store.Flood: a token bucket per address, bounded by
// MaxTracked. It shares nothing between replicas.
type memory struct {
	maxTracked int

	mu      sync.Mutex
	buckets map[string]*list.Element // of *bucket
	order   *list.List               // least recently used first
}

type bucket struct {
	addr string
	lim  *rate.Limiter
}

func newMemory(maxTracked int) *memory {
	return &memory{maxTracked: maxTracked, buckets: map[string]*list.Element{}, order: list.New()}
}

// Allow implements store.Flood.
func (m *memory) Allow(_ context.Context, addr string, now time.Time, r store.FloodRule) (time.Duration, bool, error) {
	m.mu.Lock()
	var b *bucket
	if el, found := m.buckets[addr]; found {
		b = el.Value.(*bucket)
		m.order.MoveToBack(el)
	} else {
		for m.order.Len() >= m.maxTracked {
			oldest := m.order.Front()
			delete(m.buckets, oldest.Value.(*bucket).addr)
			m.order.Remove(oldest)
		}
		b = &bucket{addr: addr, lim: rate.NewLimiter(rate.Limit(r.Rate), r.Burst)}
		m.buckets[addr] = m.order.PushBack(b)
	}
	m.mu.Unlock()
	res := b.lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return d, false, nil
	}
	return 0, true, nil
}
