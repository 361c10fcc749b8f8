// Package cachepolicy_test compares the verification cache's two designs
// on their own, outside the verifier: the sharded map with random eviction
// that svc used until issue 14 (reproduced here from svc's history), and
// otter v2 configured as modules/authn now configures it (weighed entries,
// W-TinyLFU, maintenance on the caller). Both store the same entries under
// ~600-byte tokens, the size of the bench/gate fixture's.
//
//	cd bench && go test -run '^$' -bench . -benchmem -count 6 ./cachepolicy/
package cachepolicy_test

import (
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/maypok86/otter/v2"

	"github.com/svckit/svc/bench/internal/pair"
)

// entry stands for the cached principal: a few words and a pointer to the
// key whose retirement ends it.
type entry struct {
	token   string
	subject string
	scopes  map[string]struct{}
	until   int64
	retired *atomic.Bool
}

// sharded is svc's former cache: 16 RWMutex shards keyed by a seeded
// maphash of the token, the token compared on a hit, a fixed entry count,
// a random victim when a shard is full.
type sharded struct {
	seed     maphash.Seed
	perShard int
	shards   [16]struct {
		mu sync.RWMutex
		m  map[uint64]*entry
		_  [40]byte
	}
}

func newSharded(size int) *sharded {
	c := &sharded{seed: maphash.MakeSeed(), perShard: (size + 15) / 16}
	for i := range c.shards {
		c.shards[i].m = map[uint64]*entry{}
	}
	return c
}

func (c *sharded) get(token string, now int64) (*entry, bool) {
	h := maphash.String(c.seed, token)
	sh := &c.shards[h%16]
	sh.mu.RLock()
	e := sh.m[h]
	sh.mu.RUnlock()
	if e == nil || e.token != token || now >= e.until || e.retired.Load() {
		return nil, false
	}
	return e, true
}

func (c *sharded) put(token string, e *entry) {
	h := maphash.String(c.seed, token)
	sh := &c.shards[h%16]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if _, ok := sh.m[h]; !ok && len(sh.m) >= c.perShard {
		for victim := range sh.m {
			delete(sh.m, victim)
			break
		}
	}
	sh.m[h] = e
}

// weighed is otter as modules/authn configures it.
type weighed struct{ m *otter.Cache[string, *entry] }

func newWeighed(budget uint64) *weighed {
	return &weighed{otter.Must(&otter.Options[string, *entry]{
		MaximumWeight: budget,
		Weigher:       func(k string, _ *entry) uint32 { return uint32(768 + 2*len(k) + 10*112) },
		Executor:      func(fn func()) { fn() },
	})}
}

func (c *weighed) get(token string, now int64) (*entry, bool) {
	e, ok := c.m.GetIfPresent(token)
	if !ok || now >= e.until || e.retired.Load() {
		return nil, false
	}
	return e, true
}

func (c *weighed) put(token string, e *entry) { c.m.Set(token, e) }

type cache interface {
	get(string, int64) (*entry, bool)
	put(string, *entry)
}

func tokens(n int) []string {
	pad := strings.Repeat("e", 590)
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%06d", pad, i)
	}
	return out
}

func fill(c cache, toks []string) {
	retired := new(atomic.Bool)
	for _, t := range toks {
		c.put(t, &entry{token: t, subject: "user", scopes: map[string]struct{}{"read": {}}, until: 1 << 62, retired: retired})
	}
}

// hitter returns a function getting toks round-robin, failing on a miss.
func hitter(b *testing.B, c cache, toks []string) func() {
	i := 0
	return func() {
		if _, ok := c.get(toks[i], 1); !ok {
			b.Fatal("miss")
		}
		if i++; i == len(toks) {
			i = 0
		}
	}
}

// BenchmarkHitPaired times a hit on each design in one loop: one token
// repeated, and 10,000 tokens round-robin (both caches sized to hold them).
// otter/sharded under 1 means otter's hit is cheaper.
func BenchmarkHitPaired(b *testing.B) {
	for _, n := range []int{1, 10000} {
		b.Run(fmt.Sprintf("tokens=%d", n), func(b *testing.B) {
			toks := tokens(n)
			s, o := newSharded(2*n), newWeighed(64<<20)
			fill(s, toks)
			fill(o, toks)
			b.ReportAllocs()
			oc, sc := pair.Paired(b, 64, hitter(b, o, toks), hitter(b, s, toks))
			pair.Report(b, "otter", "sharded", oc, sc)
		})
	}
}

// BenchmarkInsertPaired times an insert into a full cache (an eviction
// each), 100,000 distinct tokens into room for 4,096.
func BenchmarkInsertPaired(b *testing.B) {
	toks := tokens(100000)
	s, o := newSharded(4096), newWeighed(4096*uint64(768+2*len(toks[0])+10*112))
	fill(s, toks[:8192])
	fill(o, toks[:8192])
	retired := new(atomic.Bool)
	inserter := func(c cache) func() {
		i := 0
		return func() {
			t := toks[i]
			c.put(t, &entry{token: t, until: 1 << 62, retired: retired})
			if i++; i == len(toks) {
				i = 0
			}
		}
	}
	b.ReportAllocs()
	oc, sc := pair.Paired(b, 64, inserter(o), inserter(s))
	pair.Report(b, "otter", "sharded", oc, sc)
}

// BenchmarkRoundRobinHitRatio reports the share of hits when 10,000
// callers take turns, each inserting on a miss, with each design at its
// default bound (4,096 entries; 64 MiB), and with both held to 4,096
// entries' worth.
func BenchmarkRoundRobinHitRatio(b *testing.B) {
	toks := tokens(10000)
	entryWeight := uint64(768 + 2*len(toks[0]) + 10*112)
	for _, c := range []struct {
		name string
		c    cache
	}{
		{"sharded-4096", newSharded(4096)},
		{"otter-64MiB", newWeighed(64 << 20)},
		{"otter-4096", newWeighed(4096 * entryWeight)},
	} {
		b.Run(c.name, func(b *testing.B) {
			retired := new(atomic.Bool)
			hits, gets, i := 0, 0, 0
			for b.Loop() {
				t := toks[i]
				if _, ok := c.c.get(t, 1); ok {
					hits++
				} else {
					c.c.put(t, &entry{token: t, until: 1 << 62, retired: retired})
				}
				gets++
				if i++; i == len(toks) {
					i = 0
				}
			}
			b.ReportMetric(float64(hits)/float64(gets), "hit-ratio")
		})
	}
}

// BenchmarkHitParallel is a hit on one hot token from every CPU, the case
// of a busy service with one chatty caller: not paired (RunParallel owns
// the loop), so judge it on a quiet machine or over many runs.
func BenchmarkHitParallel(b *testing.B) {
	toks := tokens(1)
	for _, c := range []struct {
		name string
		c    cache
	}{{"sharded", newSharded(4096)}, {"otter", newWeighed(64 << 20)}} {
		fill(c.c, toks)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, ok := c.c.get(toks[0], 1); !ok {
						b.Error("miss")
						return
					}
				}
			})
		})
	}
}
