// A flood of forged ES512 tokens against a P-521 key, with the budget of
// concurrent fresh verifications at 1 and at GOMAXPROCS: how many forged
// tokens reach a signature check per second, how many are turned away
// busy, and what a cached token costs meanwhile.
//
//	cd bench && go test -run '^$' -bench 'BenchmarkForgedFlood' -benchtime 2s -count 3 ./authn
package authn_test

import (
	"context"
	"crypto"
	"crypto/elliptic"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn/bearer"
)

// BenchmarkForgedFlood times cached verifications (ns/op) while 48
// goroutines (more than the budget lets run) send forged ES512 tokens as
// fast as they are answered. It reports the forged tokens checked per
// second ("checked/s") and the share answered ErrBusy after
// VerificationWait ("busy-share"). At most budget cores run signature
// checks, whatever the keys cost.
func BenchmarkForgedFlood(b *testing.B) {
	f := newFixture(b)
	p521, sig521 := ecKeys(b, elliptic.P521(), 1)
	forged := forge(`{"alg":"ES512"}`, sig521)
	for _, n := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("budget=%d", n), func(b *testing.B) {
			keys := append([]crypto.PublicKey{&f.key.PublicKey}, p521...)
			v := bearer.KeySet(issuer, audience, keys, bearer.MaxConcurrentVerifications(n), bearer.Algorithms("ES256", "ES512"))
			ctx, cancel := context.WithCancel(context.Background())
			if _, err := v.Verify(ctx, f.token); err != nil {
				b.Fatal(err)
			}
			var checked, busy atomic.Int64
			var wg sync.WaitGroup
			for range 48 {
				wg.Go(func() {
					for ctx.Err() == nil {
						_, err := v.Verify(ctx, forged)
						if ctx.Err() != nil {
							return
						}
						if errors.Is(err, bearer.ErrBusy) {
							busy.Add(1)
							runtime.Gosched() // a real caller's next request takes a round trip
						} else {
							checked.Add(1)
						}
					}
				})
			}
			start := time.Now()
			for b.Loop() {
				if _, err := v.Verify(context.Background(), f.token); err != nil {
					b.Fatal(err)
				}
			}
			elapsed := time.Since(start)
			cancel()
			wg.Wait()
			total := checked.Load() + busy.Load()
			b.ReportMetric(float64(checked.Load())/elapsed.Seconds(), "checked/s")
			if total > 0 {
				b.ReportMetric(float64(busy.Load())/float64(total), "busy-share")
			}
		})
	}
}
