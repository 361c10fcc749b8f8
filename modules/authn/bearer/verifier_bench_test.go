package bearer

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
			preparse(tok, defaultMaxTokenSize, allAlgs())
		}
	})
	b.Run("claims", func(b *testing.B) {
		// What the claims step runs on the payload once signed.
		s, _ := split(tok, defaultMaxTokenSize)
		words := []string{testIssuer, testAudience}
		audList := []string{testAudience}
		b.ReportAllocs()
		for b.Loop() {
			raw, reg, _ := splitPayload(s.payload, words)
			c, _, _ := readRegistered(raw, reg, audList)
			checkClaims(c, testIssuer, testAudience, testNow, defaultLeeway)
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
