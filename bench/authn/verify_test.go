// Benchmarks of token verification alone (no HTTP): svc's JWT verifier
// against the raw signature check it is built on and against the
// verifiers inside the peer middlewares, on the same ES256 token.
//
//	cd bench && go test -run '^$' -bench 'BenchmarkVerify' -benchmem -count 5 ./authn
//	cd bench && go test -run '^$' -bench 'BenchmarkVerifyES256Paired' -benchmem -count 6 ./authn
package authn_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auth0/go-jwt-middleware/v2/validator"
	"github.com/go-chi/jwtauth/v5"

	"github.com/svckit/svc/bench/internal/pair"
	"github.com/svckit/svc/modules/authn/bearer"
)

const (
	issuer   = "https://issuer.example"
	audience = "https://api.example"
)

// fixture is one ES256 access token of a typical size and its key.
type fixture struct {
	key   *ecdsa.PrivateKey
	token string
	input []byte // the signing input: header.payload
	r, s  *big.Int
	der   []byte // the same signature in ASN.1 DER, for ecdsa.VerifyASN1
}

func newFixture(b testing.TB) *fixture {
	b.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	header := `{"alg":"ES256","typ":"at+jwt","kid":"k1"}`
	payload, _ := json.Marshal(map[string]any{
		"iss": issuer, "sub": "user-1234567890", "aud": audience,
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nbf": now.Unix(),
		"jti": "3f1e1c2a-9b7d-4d8e-8f6a-0c1b2d3e4f5a", "client_id": "web-app",
		"scope": "openid profile orders:read orders:write",
	})
	enc := base64.RawURLEncoding
	input := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString(payload)
	digest := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		b.Fatal(err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	der, err := asn1.Marshal(struct{ R, S *big.Int }{r, s})
	if err != nil {
		b.Fatal(err)
	}
	return &fixture{key: key, token: input + "." + enc.EncodeToString(sig), input: []byte(input), r: r, s: s, der: der}
}

// raw is the floor with r and s already decoded: sha256 and ecdsa.Verify
// (which DER-encodes r and s and calls ecdsa.VerifyASN1).
func (f *fixture) raw(b *testing.B) func() {
	return func() {
		digest := sha256.Sum256(f.input)
		if !ecdsa.Verify(&f.key.PublicKey, digest[:], f.r, f.s) {
			b.Fatal("signature")
		}
	}
}

// asn1 is the stricter floor: sha256 and ecdsa.VerifyASN1 on a signature
// already in DER, the cheapest standard-library path to the same check.
func (f *fixture) asn1(b *testing.B) func() {
	return func() {
		digest := sha256.Sum256(f.input)
		if !ecdsa.VerifyASN1(&f.key.PublicKey, digest[:], f.der) {
			b.Fatal("signature")
		}
	}
}

func (f *fixture) svc(b *testing.B, opts ...bearer.VerifierOption) *bearer.JWTVerifier {
	v := bearer.KeySet(issuer, audience, []crypto.PublicKey{&f.key.PublicKey}, opts...)
	if err := v.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close(context.Background()) })
	if _, err := v.Verify(context.Background(), f.token); err != nil {
		b.Fatal(err)
	}
	return v
}

// BenchmarkVerifyES256 runs every contender on the same token in one run.
//
//   - raw-ecdsa: sha256 of the signing input + ecdsa.Verify, r and s
//     already decoded; the floor a fresh verification can reach.
//   - raw-asn1: sha256 + ecdsa.VerifyASN1 on the signature already in DER:
//     ecdsa.Verify minus its own DER encoding of r and s, a stricter floor.
//   - svc-fresh: svc's verifier with the cache off: split, header, key,
//     signature, claims.
//   - svc-cached: the same token again, answered by the verification cache.
//   - auth0-validator, jwtauth: the verifiers inside the peer middlewares
//     (go-jose v2 and lestrrat jwx v2), each verifying afresh.
func BenchmarkVerifyES256(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()

	b.Run("raw-ecdsa", func(b *testing.B) {
		floor := f.raw(b)
		b.ReportAllocs()
		for b.Loop() {
			floor()
		}
	})
	b.Run("raw-asn1", func(b *testing.B) {
		floor := f.asn1(b)
		b.ReportAllocs()
		for b.Loop() {
			floor()
		}
	})
	b.Run("svc-fresh", func(b *testing.B) {
		v := f.svc(b, bearer.CacheBytes(0))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := v.Verify(ctx, f.token); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("svc-cached", func(b *testing.B) {
		v := f.svc(b)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := v.Verify(ctx, f.token); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("auth0-validator", func(b *testing.B) {
		v, err := validator.New(func(context.Context) (any, error) { return &f.key.PublicKey, nil },
			validator.ES256, issuer, []string{audience})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := v.ValidateToken(ctx, f.token); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jwtauth", func(b *testing.B) {
		ja := jwtauth.New("ES256", nil, &f.key.PublicKey)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jwtauth.VerifyToken(ja, f.token); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkVerifyES256Paired times the raw signature check and a fresh svc
// verification alternately in one loop, so both see the same machine load,
// and reports the medians of each and their ratio (the goal: svc/raw
// within 1.1), and the same against the stricter VerifyASN1 floor
// (svc/asn1). Medians, because on a shared machine a preemption landing in
// one of the halves skews a mean.
func BenchmarkVerifyES256Paired(b *testing.B) {
	f := newFixture(b)
	v := f.svc(b, bearer.CacheBytes(0))
	ctx := context.Background()
	floor, strict := f.raw(b), f.asn1(b)
	var raw, asn, fresh []time.Duration
	for b.Loop() {
		t0 := time.Now()
		floor()
		t1 := time.Now()
		if _, err := v.Verify(ctx, f.token); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		strict()
		t3 := time.Now()
		raw = append(raw, t1.Sub(t0))
		fresh = append(fresh, t2.Sub(t1))
		asn = append(asn, t3.Sub(t2))
	}
	r, s, a := median(raw), median(fresh), median(asn)
	b.ReportMetric(float64(r.Nanoseconds()), "raw-median-ns")
	b.ReportMetric(float64(a.Nanoseconds()), "asn1-median-ns")
	b.ReportMetric(float64(s.Nanoseconds()), "svc-median-ns")
	b.ReportMetric(float64(s)/float64(r), "svc/raw")
	b.ReportMetric(float64(s)/float64(a), "svc/asn1")
}

// BenchmarkVerifyES256PairedCPU is the same comparison on the benchmark
// thread's CPU time (bench/internal/pair), in blocks of 8 verifications:
// time the thread spent descheduled by other load on the box stays out.
// Background GC work on other threads is not in it, so the allocations of
// a fresh verification count a little less than they cost.
func BenchmarkVerifyES256PairedCPU(b *testing.B) {
	f := newFixture(b)
	v := f.svc(b, bearer.CacheBytes(0))
	ctx := context.Background()
	fresh := func() {
		if _, err := v.Verify(ctx, f.token); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("vs-raw", func(b *testing.B) {
		svc, raw := pair.Paired(b, 8, fresh, f.raw(b))
		pair.Report(b, "svc", "raw", svc, raw)
	})
	b.Run("vs-asn1", func(b *testing.B) {
		svc, raw := pair.Paired(b, 8, fresh, f.asn1(b))
		pair.Report(b, "svc", "asn1", svc, raw)
	})
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// BenchmarkVerifyES256Parallel: the cache hit under contention from every
// CPU, the case of a busy service.
func BenchmarkVerifyES256Parallel(b *testing.B) {
	f := newFixture(b)
	v := f.svc(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := v.Verify(context.Background(), f.token); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestFixtureIsATypicalAccessToken(t *testing.T) {
	f := newFixture(t)
	if n := len(f.token); n < 350 || n > 700 || strings.Count(f.token, ".") != 2 {
		t.Fatalf("token of %d bytes", n)
	}
}
