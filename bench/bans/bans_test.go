// Package bans_test measures what a refusal costs against an accepted
// request: a caller that sent no token, a banned caller, and a fresh ES256
// token that must be verified.
package bans_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"go.uber.org/zap"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/bearer"
)

const (
	issuer   = "https://idp.bench.test"
	audience = "api://bench"
)

type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// fixture is a gate with bans on, a banned address, and a pool of distinct
// valid tokens (beyond the verification cache, so each one is verified).
type fixture struct {
	h      http.Handler
	tokens []string
}

func newFixture(b *testing.B, pool int) fixture {
	b.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	v := bearer.KeySet(issuer, audience, []crypto.PublicKey{&key.PublicKey}, bearer.CacheBytes(0))
	if err := v.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = v.Close(context.Background()) })
	bn := bans.New(bans.Threshold(1), bans.Duration(time.Hour))
	bn.Fail("203.0.113.9")
	g, err := authn.New(v, authn.Bans(bn))
	if err != nil {
		b.Fatal(err)
	}
	g.SetLogger(zap.NewNop())
	r := chi.NewRouter()
	r.Get("/me", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	h, err := g.Handler(r)
	if err != nil {
		b.Fatal(err)
	}
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, nil)
	f := fixture{h: h}
	for i := 0; i < pool; i++ {
		tok, err := jwt.Signed(signer).Claims(map[string]any{"iss": issuer, "aud": audience,
			"sub": fmt.Sprint("user-", i), "exp": time.Now().Add(time.Hour).Unix()}).Serialize()
		if err != nil {
			b.Fatal(err)
		}
		f.tokens = append(f.tokens, tok)
	}
	return f
}

func run(b *testing.B, h http.Handler, want int, req func(i int) *http.Request) {
	b.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req(0))
	if rec.Code != want {
		b.Fatalf("status %d, want %d: %s", rec.Code, want, rec.Body)
	}
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clear(w.h)
		h.ServeHTTP(w, req(i))
	}
}

func request(addr, token string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/me", nil)
	r.RemoteAddr = addr + ":4000"
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

func BenchmarkRefusal(b *testing.B) {
	f := newFixture(b, 512)
	b.Run("fresh-ES256-accepted", func(b *testing.B) {
		reqs := make([]*http.Request, len(f.tokens))
		for i, t := range f.tokens {
			reqs[i] = request("198.51.100.1", t)
		}
		run(b, f.h, http.StatusOK, func(i int) *http.Request { return reqs[i%len(reqs)] })
	})
	b.Run("banned-429", func(b *testing.B) {
		req := request("203.0.113.9", f.tokens[0])
		run(b, f.h, http.StatusTooManyRequests, func(int) *http.Request { return req })
	})
	b.Run("no-token-401", func(b *testing.B) {
		req := request("198.51.100.2", "")
		run(b, f.h, http.StatusUnauthorized, func(int) *http.Request { return req })
	})
}
