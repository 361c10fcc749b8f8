// The forged-token cost table: what one forged token (a well-formed token
// with a signature that does not verify) makes svc's verifier spend, for
// each algorithm and key set, against a fresh valid ES256 verification
// timed alternately in the same run (bench/internal/pair).
//
//	cd bench && go test -run '^$' -bench 'BenchmarkForgedTokenCost' -count 3 ./authn
package authn_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"math/big"
	"testing"

	"github.com/svckit/svc/bench/internal/pair"
	"github.com/svckit/svc/modules/authn/bearer"
)

// forgedCase is one row of the table: the key set the verifier holds and
// a forged token for it.
type forgedCase struct {
	name  string
	keys  []crypto.PublicKey
	token string
	// opts are the verifier's options beyond the bench's own; reason is
	// what the forged token is refused for (signature: the full check ran).
	opts   []bearer.VerifierOption
	reason bearer.Reason
}

// withES512 opts an app into ES512, which the default allow-list leaves out.
var withES512 = []bearer.VerifierOption{bearer.Algorithms("ES256", "ES512")}

// forge builds a token with header and a signature of the right size and
// range that no held key made, so the verifier must do the full check.
func forge(header string, sig []byte) string {
	enc := base64.RawURLEncoding
	payload := `{"iss":"` + issuer + `","aud":"` + audience + `","sub":"mallory","exp":4102444800}`
	return enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payload)) + "." + enc.EncodeToString(sig)
}

func ecKeys(b *testing.B, c elliptic.Curve, n int) ([]crypto.PublicKey, []byte) {
	var keys []crypto.PublicKey
	for range n {
		k, err := ecdsa.GenerateKey(c, rand.Reader)
		if err != nil {
			b.Fatal(err)
		}
		keys = append(keys, &k.PublicKey)
	}
	// The forger's signature: r and s in range, from a key of its own.
	own, _ := ecdsa.GenerateKey(c, rand.Reader)
	size := (c.Params().BitSize + 7) / 8
	r, s, err := ecdsa.Sign(rand.Reader, own, make([]byte, 32))
	if err != nil {
		b.Fatal(err)
	}
	sig := make([]byte, 2*size)
	r.FillBytes(sig[:size])
	s.FillBytes(sig[size:])
	return keys, sig
}

// rsaKeys are n public keys of bits bits. Verifying costs one modular
// exponentiation by e whatever the modulus's factors, so a random odd
// modulus of the right size costs what a real key does without the
// minutes an 8192-bit key generation takes here.
func rsaKeys(b *testing.B, bits, n int) ([]crypto.PublicKey, []byte) {
	var keys []crypto.PublicKey
	for range n {
		m, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), uint(bits)))
		if err != nil {
			b.Fatal(err)
		}
		m.SetBit(m, bits-1, 1)
		m.SetBit(m, bits-2, 1)
		m.SetBit(m, 0, 1)
		keys = append(keys, &rsa.PublicKey{N: m, E: 65537})
	}
	sig := make([]byte, bits/8)
	rand.Read(sig[1:]) // below every modulus: the top byte is zero
	return keys, sig
}

func forgedCases(b *testing.B) []forgedCase {
	p256, sig256 := ecKeys(b, elliptic.P256(), 4)
	p384, sig384 := ecKeys(b, elliptic.P384(), 4)
	p521, sig521 := ecKeys(b, elliptic.P521(), 4)
	r2048, sig2048 := rsaKeys(b, 2048, 4)
	r4096, sig4096 := rsaKeys(b, 4096, 4)
	var eds []crypto.PublicKey
	for range 4 {
		pub, _, _ := ed25519.GenerateKey(rand.Reader)
		eds = append(eds, pub)
	}
	edSig := make([]byte, ed25519.SignatureSize)
	_, own, _ := ed25519.GenerateKey(rand.Reader)
	copy(edSig, ed25519.Sign(own, []byte("x")))
	thumb := thumbprintOf(b, p521[0])
	return []forgedCase{
		{"ES256-kidless-4xP256", p256, forge(`{"alg":"ES256"}`, sig256), nil, bearer.ReasonSignature},
		{"ES384-kidless-4xP384", p384, forge(`{"alg":"ES384"}`, sig384), nil, bearer.ReasonSignature},
		{"ES512-default-4xP521", p521, forge(`{"alg":"ES512"}`, sig521), nil, bearer.ReasonAlgorithm},
		{"ES512-optedin-kidless-4xP521", p521, forge(`{"alg":"ES512"}`, sig521), withES512, bearer.ReasonSignature},
		{"ES512-optedin-kid-1xP521", p521[:1], forge(`{"alg":"ES512","kid":"`+thumb+`"}`, sig521), withES512, bearer.ReasonSignature},
		{"RS256-kidless-4xRSA2048", r2048, forge(`{"alg":"RS256"}`, sig2048), nil, bearer.ReasonSignature},
		{"PS512-kidless-4xRSA4096", r4096, forge(`{"alg":"PS512"}`, sig4096), nil, bearer.ReasonSignature},
		{"RS512-kidless-4xRSA4096", r4096, forge(`{"alg":"RS512"}`, sig4096), nil, bearer.ReasonSignature},
		{"EdDSA-kidless-4xEd25519", eds, forge(`{"alg":"EdDSA"}`, edSig), nil, bearer.ReasonSignature},
	}
}

// thumbprintOf is the kid a held key answers to: its RFC 7638 thumbprint,
// as the verifier's own error-free path computes it (through go-jose).
func thumbprintOf(b *testing.B, pub crypto.PublicKey) string {
	k := pub.(*ecdsa.PublicKey)
	// RFC 7638 §3.2: the required members in lexicographic order.
	size := (k.Curve.Params().BitSize + 7) / 8
	enc := base64.RawURLEncoding
	x, y := make([]byte, size), make([]byte, size)
	k.X.FillBytes(x)
	k.Y.FillBytes(y)
	canon := `{"crv":"` + k.Curve.Params().Name + `","kty":"EC","x":"` + enc.EncodeToString(x) + `","y":"` + enc.EncodeToString(y) + `"}`
	sum := crypto.SHA256.New()
	sum.Write([]byte(canon))
	return enc.EncodeToString(sum.Sum(nil))
}

// BenchmarkForgedTokenCost reports, per case, the CPU time of one forged
// token and of one fresh valid ES256 verification alternated with it, and
// their ratio ("forged/fresh-cpu"; the goal is ≤ 10 whatever the key set).
// The budget of concurrent verifications is set high so that it never
// refuses here: this is the cost of one token, not of a flood.
func BenchmarkForgedTokenCost(b *testing.B) {
	f := newFixture(b)
	valid := f.svc(b, bearer.CacheBytes(0))
	ctx := context.Background()
	fresh := func() {
		if _, err := valid.Verify(ctx, f.token); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range forgedCases(b) {
		v := bearer.KeySet(issuer, audience, c.keys, append([]bearer.VerifierOption{bearer.CacheBytes(0), bearer.MaxConcurrentVerifications(64)}, c.opts...)...)
		var te *bearer.TokenError
		if _, err := v.Verify(ctx, c.token); !errors.As(err, &te) || te.Reason != c.reason {
			b.Fatalf("%s: the forged token was not refused for %s: %v", c.name, c.reason, err)
		}
		forged := func() { v.Verify(ctx, c.token) }
		b.Run(c.name, func(b *testing.B) {
			fc, vc := pair.Paired(b, 2, forged, fresh)
			pair.Report(b, "forged", "fresh", fc, vc)
		})
	}
}
