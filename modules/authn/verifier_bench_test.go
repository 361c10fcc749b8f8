package authn

import (
	"context"
	"crypto"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// The parts of a fresh verification around the signature, to keep the
// overhead over the raw signature check visible (bench/authn has the
// comparison itself).
func BenchmarkVerifyOverhead(b *testing.B) {
	k := keys(b)
	claims := validClaims()
	claims["client_id"] = "web-app"
	tok := joseSign(b, jose.ES256, k.p256, "k1", claims)
	b.Run("preparse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			preparse(tok, DefaultMaxTokenSize, allAlgs())
		}
	})
	pt, _ := preparse(tok, DefaultMaxTokenSize, allAlgs())
	b.Run("claims", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, _, _ := claimsOf(pt.payload, testIssuer, []string{testAudience})
			checkClaims(c, testIssuer, testAudience, testNow, DefaultLeeway)
		}
	})
	b.Run("claims-registered", func(b *testing.B) {
		// What Verify runs: the registered claims as splitPayload picked
		// them out, no map lookups.
		b.ReportAllocs()
		for b.Loop() {
			c, _, _ := readRegistered(pt.payload, pt.reg, testIssuer, []string{testAudience})
			checkClaims(c, testIssuer, testAudience, testNow, DefaultLeeway)
		}
	})
	v := KeySet(testIssuer, testAudience, []crypto.PublicKey{&k.p256.PublicKey}, Clock(fixedClock()))
	b.Run("cache-hit", func(b *testing.B) {
		v.Verify(context.Background(), tok)
		b.ReportAllocs()
		for b.Loop() {
			v.Verify(context.Background(), tok)
		}
	})
}
