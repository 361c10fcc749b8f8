package authn_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/svckit/svc/bench/internal/pair"
	"github.com/svckit/svc/modules/authn/bearer"
)

// BenchmarkIssuersPaired: the same token through a verifier of its one
// issuer and through bearer.Issuers trusting ten (the token's issuer and
// nine others, each with its own key), alternated in blocks on the thread's
// CPU time. Goal (issue 20): ten issuers ≤ 1.1× one issuer, cached and
// fresh.
//
//	cd bench && go test -run '^$' -bench 'IssuersPaired' -benchmem -count 6 ./authn
func BenchmarkIssuersPaired(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts []bearer.VerifierOption
		n    int
	}{
		{"cached", nil, 64},
		{"fresh", []bearer.VerifierOption{bearer.CacheBytes(0)}, 8},
	} {
		b.Run(tc.name, func(b *testing.B) {
			one := f.svc(b, tc.opts...)
			ten := tenIssuers(b, f, tc.opts)
			verify := func(v bearer.Verifier) func() {
				return func() {
					if _, err := v.Verify(ctx, f.token); err != nil {
						b.Fatal(err)
					}
				}
			}
			verify(ten)()
			b.ReportAllocs()
			cten, cone := pair.Paired(b, tc.n, verify(ten), verify(one))
			pair.Report(b, "ten", "one", cten, cone)
		})
	}
}

// tenIssuers is bearer.Issuers over the fixture's issuer (the fifth of ten)
// and nine others, opened.
func tenIssuers(b *testing.B, f *fixture, opts []bearer.VerifierOption) bearer.Verifier {
	var vs []*bearer.JWTVerifier
	for i := range 10 {
		if i == 4 {
			vs = append(vs, bearer.KeySet(issuer, audience, []crypto.PublicKey{&f.key.PublicKey}, opts...))
			continue
		}
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			b.Fatal(err)
		}
		vs = append(vs, bearer.KeySet(fmt.Sprintf("https://issuer-%d.example", i), audience, []crypto.PublicKey{&k.PublicKey}, opts...))
	}
	v := bearer.Issuers(vs...)
	lc := v.(interface {
		Open(context.Context) error
		Close(context.Context) error
	})
	if err := lc.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = lc.Close(context.Background()) })
	return v
}
