package authn_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/svckit/svc/bench/internal/pair"
	"github.com/svckit/svc/modules/authn/dpop"
	"github.com/svckit/svc/modules/store"
)

// freshIDs makes every proof's jti new to the in-memory store, so that one
// proof can be timed again and again while the store does the work of a
// new jti (insert, expire) each time.
type freshIDs struct {
	inner store.Replay
	n     atomic.Int64
}

func (s *freshIDs) Remember(ctx context.Context, id string, ttl time.Duration) (bool, error) {
	return s.inner.Remember(ctx, id[:32]+strconv.FormatInt(s.n.Add(1), 36), ttl)
}

// BenchmarkDPoPPaired: a DPoP request with a cached access token (the
// verifier's cache hit + the whole proof check: parse, ES256 signature,
// htm, htu, iat, ath, jti in the in-memory store) against its floor (the
// same cache hit + one raw ES256 verify), alternated on the thread's CPU
// time. Goal (issue 21): ≤ 1.15×.
//
//	cd bench && go test -run '^$' -bench 'DPoPPaired' -benchmem -count 6 ./authn
func BenchmarkDPoPPaired(b *testing.B) {
	f := newFixture(b)
	at := f.svc(b)
	ctx := context.Background()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
	if err != nil {
		b.Fatal(err)
	}
	const url = "https://api.example/orders/42"
	claims, _ := json.Marshal(map[string]any{"jti": "e1j3V_bKic8-LAEB", "htm": "GET", "htu": url, "iat": time.Now().Unix(), "ath": athOf(f.token)})
	jws, err := signer.Sign(claims)
	if err != nil {
		b.Fatal(err)
	}
	proof, _ := jws.CompactSerialize()
	v, err := dpop.New(dpop.Window(time.Hour, 5*time.Second), dpop.Store(&freshIDs{inner: dpop.NewMemoryReplay(1 << 22)}))
	if err != nil {
		b.Fatal(err)
	}
	r := httptest.NewRequest("GET", url, nil)
	r.Header.Set("DPoP", proof)
	r.Header.Set("Authorization", "DPoP "+f.token)
	withDPoP := func() {
		if _, err := at.Verify(ctx, f.token); err != nil {
			b.Fatal(err)
		}
		if _, err := v.Verify(r, f.token); err != nil {
			b.Fatal(err)
		}
	}
	raw := f.raw(b)
	floor := func() {
		if _, err := at.Verify(ctx, f.token); err != nil {
			b.Fatal(err)
		}
		raw()
	}
	b.ReportAllocs()
	ca, cz := pair.Paired(b, 8, withDPoP, floor)
	pair.Report(b, "dpop", "floor", ca, cz)
}

func athOf(token string) string {
	s := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(s[:])
}
