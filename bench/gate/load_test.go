package gate_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/svckit/svc/bench/internal/pair"
)

// loadCallers is how many distinct callers the load case cycles through:
// more than the 4,096 entries the verification cache was once capped at
// (issue 14 item 15), and well inside its default byte budget.
const loadCallers = 10000

var (
	loadOnce sync.Once
	loadPool []token
)

// loadTokens mints loadCallers valid ES256 tokens, once per process.
func loadTokens(k *keys) []token {
	loadOnce.Do(func() {
		now := time.Now()
		loadPool = make([]token, loadCallers)
		for i := range loadPool {
			loadPool[i] = k.mint(100000+i, now)
		}
	})
	return loadPool
}

// BenchmarkGateLoad measures how much of the one-caller throughput svc's
// gate (default settings) keeps when 10,000 callers take turns: both sides
// alternate in one loop (see pair.Paired), each on its own gate on the same
// chi route.
//
//   - one: the same valid token on every request.
//   - many: 10,000 distinct valid tokens, round-robin, each verified once
//     before timing (a warm cache, as in a service that has been up for a
//     token's lifetime).
//
// Goal: many reaches ≥ 0.8× one's throughput: one/many (one's cost over
// many's, which is many's throughput over one's) ≥ 0.8.
//
//	cd bench && go test -run '^$' -bench 'GateLoad' -benchmem -count 6 ./gate/
func BenchmarkGateLoad(b *testing.B) {
	k := theKeys(b)
	pool := loadTokens(k)
	one, many := checked(b, svc, k), checked(b, svc, k)

	w := newDiscardWriter()
	serveOK := func(h http.Handler, r *http.Request) {
		w.reset()
		h.ServeHTTP(w, r)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
	rOne, rMany := request(k.one.auth), request(nil)
	for i := range pool { // warm the cache: every caller verified once
		rMany.Header["Authorization"] = pool[i].auth
		serveOK(many, rMany)
	}

	i := 0
	oneCost, manyCost := pair.Paired(b, 64,
		func() { serveOK(one, rOne) },
		func() {
			rMany.Header["Authorization"] = pool[i].auth
			i++
			if i == len(pool) {
				i = 0
			}
			serveOK(many, rMany)
		})
	// one/many is one's cost over many's: many's throughput as a share of
	// one's.
	pair.Report(b, "one", "many", oneCost, manyCost)
}
