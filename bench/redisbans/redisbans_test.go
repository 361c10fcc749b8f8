// Package redisbans_test measures the gate's hot path with bans kept on
// Redis against bans kept in memory: an unbanned caller with a cached
// token, where the Redis store answers from its local copy of the ban set
// and makes no round trip. Goal: within 5 %.
package redisbans_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"go.uber.org/zap"

	"github.com/svckit/svc/bench/internal/pair"
	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/secret"
)

const (
	issuer   = "https://idp.bench.test"
	audience = "api://bench"
)

type discard struct {
	h      http.Header
	status int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(s int)           { d.status = s }

// gate builds a gate with b as its bans, one banned address (so the ban
// set is not empty) and one route.
func gate(tb testing.TB, v bearer.Verifier, b *bans.Bans) http.Handler {
	tb.Helper()
	b.Fail("203.0.113.9")
	g, err := authn.New(v, authn.Bans(b))
	if err != nil {
		tb.Fatal(err)
	}
	g.SetLogger(zap.NewNop())
	r := chi.NewRouter()
	r.Get("/me", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	h, err := g.Handler(r)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

func BenchmarkUnbannedCallerPaired(b *testing.B) {
	srv := redistest.Start(b)
	client, err := redisstore.New(redisstore.Config{URL: secret.URL(srv.URL), Prefix: "bench:"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = client.Close() })
	store := client.Bans() // its subscriber runs from its first use until client.Close

	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	v := bearer.KeySet(issuer, audience, []crypto.PublicKey{&key.PublicKey})
	if err := v.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = v.Close(context.Background()) })
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, nil)
	tok, err := jwt.Signed(signer).Claims(map[string]any{"iss": issuer, "aud": audience,
		"sub": "alice", "exp": time.Now().Add(time.Hour).Unix()}).Serialize()
	if err != nil {
		b.Fatal(err)
	}

	inRedis := gate(b, v, bans.New(bans.Threshold(1), bans.Duration(time.Hour), bans.Store(store)))
	inMemory := gate(b, v, bans.New(bans.Threshold(1), bans.Duration(time.Hour)))
	// The ban is in the local copy at once (the replica that starts a ban
	// records it), and the subscriber, started by that first use, keeps
	// it there.
	if _, ok := store.Banned("default", "203.0.113.9", time.Now()); !ok {
		b.Fatal("the Redis store did not record the ban")
	}
	serve := func(h http.Handler, addr string, want int) func() {
		r := httptest.NewRequest(http.MethodGet, "/me", nil)
		r.RemoteAddr = addr + ":4000"
		r.Header.Set("Authorization", "Bearer "+tok)
		w := &discard{h: http.Header{}}
		return func() {
			clear(w.h)
			h.ServeHTTP(w, r)
			if w.status != want && !(want == http.StatusOK && w.status == 0) {
				b.Fatalf("status %d, want %d", w.status, want)
			}
		}
	}
	// Both refuse the banned address, so both really consult their bans.
	serve(inRedis, "203.0.113.9", http.StatusTooManyRequests)()
	serve(inMemory, "203.0.113.9", http.StatusTooManyRequests)()
	r, m := serve(inRedis, "198.51.100.1", http.StatusOK), serve(inMemory, "198.51.100.1", http.StatusOK)
	r()
	m()
	b.ReportAllocs()
	cr, cm := pair.Paired(b, 64, r, m)
	pair.Report(b, "redis", "memory", cr, cm)
}
