// Benchmarks of a whole authenticated request: the same chi route and the
// same ES256 tokens through svc's gate, auth0/go-jwt-middleware v2,
// go-chi/jwtauth v5 and bare chi (the floor), in one run. Handlers are
// called directly (no network) with a reused discarding ResponseWriter.
//
//	cd bench && go test -run '^$' -bench . -benchmem -count 5 ./gate
package gate_test

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"github.com/svckit/svc/bench/internal/pair"
	"net/http"
	"testing"
)

// serve runs h on r for every iteration and checks each answer's status,
// so that a contender that starts refusing mid-run fails instead of
// looking fast.
func serve(b *testing.B, h http.Handler, r *http.Request, status int) {
	w := newDiscardWriter()
	b.ReportAllocs()
	defer pair.CPUMeter(b)()
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, r)
		if w.status != status {
			b.Fatalf("status %d, want %d", w.status, status)
		}
	}
}

// serveEach is serve with a different token per request, cycling through
// the pool.
func serveEach(b *testing.B, h http.Handler, r *http.Request, pool []token) {
	w := newDiscardWriter()
	i := 0
	b.ReportAllocs()
	defer pair.CPUMeter(b)()
	for b.Loop() {
		r.Header["Authorization"] = pool[i].auth
		i = (i + 1) % len(pool)
		w.reset()
		h.ServeHTTP(w, r)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
}

// rawVerify is the floor of a fresh ES256 verification: SHA-256 of the
// signing input and ecdsa.Verify, with r and s already decoded.
func rawVerify(t *token) bool {
	digest := sha256.Sum256(t.input)
	return ecdsa.Verify(&fixture.key.PublicKey, digest[:], t.r, t.s)
}

// BenchmarkGate runs every contender on the same route in one run.
//
//   - accepted-repeated: the same valid token on every request (svc
//     answers from its verification cache; the peers have none).
//   - accepted-fresh: a different valid token on every request, cycling
//     through 4096; raw-ecdsa is the signature check alone.
//   - refused-no-token: no Authorization header; every guard refuses it
//     (401; auth0's default error handler answers 400).
func BenchmarkGate(b *testing.B) {
	k := theKeys(b)

	b.Run("accepted-repeated", func(b *testing.B) {
		for _, c := range []contender{floor, svc, auth0Peer, jwtauthPer} {
			b.Run(c.name, func(b *testing.B) {
				h := checked(b, c, k)
				serve(b, h, request(k.one.auth), http.StatusOK)
			})
		}
	})

	b.Run("accepted-fresh", func(b *testing.B) {
		b.Run("raw-ecdsa", func(b *testing.B) {
			pool := k.tokens()
			i := 0
			b.ReportAllocs()
			defer pair.CPUMeter(b)()
			for b.Loop() {
				if !rawVerify(&pool[i]) {
					b.Fatal("signature")
				}
				i = (i + 1) % len(pool)
			}
		})
		for _, c := range []contender{floor, svcNoCch, svcMiss, auth0Peer, jwtauthPer} {
			b.Run(c.name, func(b *testing.B) {
				h := checked(b, c, k)
				serveEach(b, h, request(nil), k.tokens())
			})
		}
	})

	b.Run("refused-no-token", func(b *testing.B) {
		for _, c := range []contender{svc, auth0Peer, jwtauthPer} {
			b.Run(c.name, func(b *testing.B) {
				h := checked(b, c, k)
				serve(b, h, request(nil), c.missing)
			})
		}
	})
}

// BenchmarkGatePaired measures the two tight goals with both sides in one
// loop, on wall and on thread CPU time (see paired):
//
//   - cache-hit: svc with a repeated token against bare chi; goal
//     svc < 1.2 × bare + 1 µs, reported as svc/goal = svc/(1.2×bare+1µs),
//     met under 1; and issue 36's svc ≤ bare + 0.5 µs, reported as
//     over-bare-cpu-ns.
//   - fresh: svc's gate with the cache off against the raw signature
//     check on the same tokens; goal svc/raw < 1.1.
func BenchmarkGatePaired(b *testing.B) {
	k := theKeys(b)

	b.Run("cache-hit", func(b *testing.B) {
		hs, hb := checked(b, svc, k), checked(b, floor, k)
		rs, rb := request(k.one.auth), request(k.one.auth)
		w := newDiscardWriter()
		run := func(h http.Handler, r *http.Request) func() {
			return func() {
				w.reset()
				h.ServeHTTP(w, r)
				if w.status != http.StatusOK {
					b.Fatalf("status %d", w.status)
				}
			}
		}
		svc, bare := pair.Paired(b, 64, run(hs, rs), run(hb, rb))
		pair.Report(b, "svc", "bare", svc, bare)
		b.ReportMetric(svc.Wall/(1.2*bare.Wall+1000), "svc/goal")
		if svc.CPU > 0 && bare.CPU > 0 {
			b.ReportMetric(svc.CPU/(1.2*bare.CPU+1000), "svc/goal-cpu")
			// Issue 36's tighter goal: the gate adds at most 500 ns.
			b.ReportMetric(svc.CPU-bare.CPU, "over-bare-cpu-ns")
		}
	})

	b.Run("fresh", func(b *testing.B) {
		h := checked(b, svcNoCch, k)
		pool := k.tokens()
		r := request(nil)
		w := newDiscardWriter()
		i, j := 0, 0
		gate := func() {
			r.Header["Authorization"] = pool[i].auth
			i = (i + 1) % len(pool)
			w.reset()
			h.ServeHTTP(w, r)
			if w.status != http.StatusOK {
				b.Fatalf("status %d", w.status)
			}
		}
		raw := func() {
			if !rawVerify(&pool[j]) {
				b.Fatal("signature")
			}
			j = (j + 1) % len(pool)
		}
		svc, rawCost := pair.Paired(b, 4, gate, raw)
		pair.Report(b, "svc", "raw", svc, rawCost)
	})
}

// TestContendersAnswerAsExpected runs the checks of the benchmarks in
// plain `go test`: each contender accepts the token, and each guard
// refuses no token and a forged one.
func TestContendersAnswerAsExpected(t *testing.T) {
	k := theKeys(t)
	for _, c := range []contender{floor, svc, svcNoCch, svcMiss, auth0Peer, jwtauthPer} {
		checked(t, c, k)
	}
}
