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
	"net/http"
	"testing"
	"time"
)

// serve runs h on r for every iteration and checks each answer's status,
// so that a contender that starts refusing mid-run fails instead of
// looking fast.
func serve(b *testing.B, h http.Handler, r *http.Request, status int) {
	w := newDiscardWriter()
	b.ReportAllocs()
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

// paired times two loops alternately, in blocks of n iterations between
// clock reads, so both see the same machine load (the box has 2 cores and
// neighbours), and returns each one's ns per iteration.
func paired(b *testing.B, n int, a, z func()) (aNs, zNs float64) {
	var at, zt time.Duration
	for b.Loop() {
		t0 := time.Now()
		for range n {
			a()
		}
		t1 := time.Now()
		for range n {
			z()
		}
		t2 := time.Now()
		at += t1.Sub(t0)
		zt += t2.Sub(t1)
	}
	iters := float64(b.N * n)
	return float64(at.Nanoseconds()) / iters, float64(zt.Nanoseconds()) / iters
}

// BenchmarkGatePaired measures the two tight goals with both sides in one
// loop and reports the goal as a metric (a value under 1 meets it):
//
//   - cache-hit: svc with a repeated token against bare chi; goal
//     svc < 1.2 × bare + 1 µs (reported as svc/(1.2×bare+1µs)).
//   - fresh: svc's gate with the cache off against the raw signature
//     check on the same tokens; goal svc < 1.1 × raw (reported as svc/raw,
//     to compare with 1.1).
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
		svcNs, bareNs := paired(b, 64, run(hs, rs), run(hb, rb))
		b.ReportMetric(svcNs, "svc-ns/op")
		b.ReportMetric(bareNs, "bare-ns/op")
		b.ReportMetric(svcNs/(1.2*bareNs+1000), "svc/goal")
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
		svcNs, rawNs := paired(b, 4, gate, raw)
		b.ReportMetric(svcNs, "svc-ns/op")
		b.ReportMetric(rawNs, "raw-ns/op")
		b.ReportMetric(svcNs/rawNs, "svc/raw")
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
