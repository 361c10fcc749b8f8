package store

import (
	"container/list"
	"context"
	"hash/maphash"
	"sync"
	"time"
)

// Defaults of [NewMemory].
const (
	defaultMaxRateKeys  = 1 << 20
	defaultMaxRecords   = 100_000
	defaultMaxCacheSize = 64 << 20
)

// Memory is the in-memory store: every [Rates], [Idempotency] and [Cache]
// of one process. It is safe for concurrent use. Expired records are
// dropped as it meets them and in sweeps it runs when a table grows, so it
// owns no goroutine. It does not share state between replicas.
type Memory struct {
	clock func() time.Time // set by Clock; nil reads the monotonic clock
	start time.Time

	seed   maphash.Seed
	shards [rateShards]rateShard
	maxPer int

	idemMu     sync.Mutex
	idem       map[Key]*idemRecord
	maxRecords int

	cacheMu  sync.Mutex
	cache    map[Key]*list.Element
	lru      list.List // front = most recently used *cacheItem
	size     int
	maxBytes int
}

// MemoryOption configures [NewMemory].
type MemoryOption func(*Memory)

// Clock sets where the store reads the time (default: time.Now's
// monotonic reading, which a wall-clock step does not move). Tests pass a
// fake clock.
func Clock(now func() time.Time) MemoryOption {
	return func(m *Memory) {
		if now != nil {
			m.clock = now
		}
	}
}

// MaxRateKeys bounds how many rate-limit keys are kept (default
// 1 << 20). Over it, keys whose budget is full again go first;
// then any: a key dropped gets its full budget back.
func MaxRateKeys(n int) MemoryOption {
	return func(m *Memory) {
		if n > 0 {
			m.maxPer = max(1, n/rateShards)
		}
	}
}

// MaxRecords bounds how many idempotency records are kept (default
// 100 000). Over it, expired records go first, then completed
// ones until a sixteenth of the bound is free; records in flight are never
// dropped.
func MaxRecords(n int) MemoryOption {
	return func(m *Memory) {
		if n > 0 {
			m.maxRecords = n
		}
	}
}

// MaxCacheSize bounds the bytes of cached responses (default
// 64 MiB). Over it, the least recently used go first; a
// response larger than the bound is not stored.
func MaxCacheSize(bytes int) MemoryOption {
	return func(m *Memory) {
		if bytes > 0 {
			m.maxBytes = bytes
		}
	}
}

// NewMemory returns an empty in-memory store.
func NewMemory(opts ...MemoryOption) *Memory {
	m := &Memory{
		start:      time.Now(),
		seed:       maphash.MakeSeed(),
		maxPer:     defaultMaxRateKeys / rateShards,
		idem:       map[Key]*idemRecord{},
		maxRecords: defaultMaxRecords,
		cache:      map[Key]*list.Element{},
		maxBytes:   defaultMaxCacheSize,
	}
	for _, o := range opts {
		if o != nil {
			o(m)
		}
	}
	for i := range m.shards {
		m.shards[i].tat = map[Key]*int64{}
	}
	return m
}

// Compile-time checks that Memory is every store.
var (
	_ Rates       = (*Memory)(nil)
	_ Idempotency = (*Memory)(nil)
	_ Cache       = (*Memory)(nil)
)

const rateShards = 64

// rateShard holds the theoretical arrival time (GCRA) of each key, in Unix
// nanoseconds. The time is held by pointer so that a returning caller,
// every admitted request but a key's first, costs one lookup of its
// three-string key: a value would be looked up, then assigned (hashed and
// probed twice).
type rateShard struct {
	mu        sync.Mutex
	tat       map[Key]*int64
	nextSweep int
}

// Allow implements [Rates] with GCRA: a request is admitted when the
// key's theoretical arrival time, pushed one interval on, is within
// Burst intervals of now.
func (m *Memory) Allow(_ context.Context, k Key, r Rate) (RateResult, error) {
	if r.Interval <= 0 || r.Burst < 1 {
		return RateResult{}, errInvalidRate
	}
	now := m.nanos()
	// The caller alone picks the shard: the table's own hash covers the
	// whole key, and one hash here is cheaper than three.
	h := maphash.String(m.seed, k.ID)
	s := &m.shards[h%rateShards]
	interval := int64(r.Interval)
	window := interval * int64(r.Burst)

	s.mu.Lock()
	slot := s.tat[k]
	tat := now
	if slot != nil && *slot > now {
		tat = *slot
	}
	next := tat + interval
	allowAt := next - window
	if now < allowAt {
		s.mu.Unlock()
		return RateResult{RetryAfter: time.Duration(allowAt - now), ResetAfter: time.Duration(tat - now)}, nil
	}
	if slot == nil {
		s.admitKey(now, m.maxPer)
		slot = new(int64)
		s.tat[k] = slot
	}
	*slot = next
	s.mu.Unlock()
	return RateResult{
		Allowed:    true,
		Remaining:  int((window - (next - now)) / interval),
		ResetAfter: time.Duration(next - now),
	}, nil
}

// now is the store's time: the Clock's, else the start's advanced by the
// process's monotonic clock. A wall-clock step (NTP, a VM resumed) must
// neither refill nor drain a budget nor expire a record early.
func (m *Memory) now() time.Time {
	if m.clock != nil {
		return m.clock()
	}
	return m.start.Add(time.Since(m.start))
}

// nanos is now in Unix nanoseconds, without building a time.Time: the
// rate path's one clock read, where time.Now takes two.
func (m *Memory) nanos() int64 {
	if m.clock != nil {
		return m.clock().UnixNano()
	}
	return m.start.UnixNano() + int64(time.Since(m.start))
}

// admitKey makes room for one more key: past the shard's share, keys whose
// budget is full again (tat in the past) are dropped, then any.
func (s *rateShard) admitKey(now int64, maxPer int) {
	if len(s.tat) < maxPer && len(s.tat) < s.nextSweep {
		return
	}
	for key, tat := range s.tat {
		if *tat <= now {
			delete(s.tat, key)
		}
	}
	for key := range s.tat {
		if len(s.tat) < maxPer {
			break
		}
		delete(s.tat, key)
	}
	// Sweep again only once the table has doubled: a sweep costs its size.
	s.nextSweep = max(2*len(s.tat), 1024)
}

type rateError string

func (e rateError) Error() string { return string(e) }

const errInvalidRate = rateError("store: a Rate needs a positive Interval and a Burst of at least 1")
