package redisstore_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/authn/dpop"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/store"
)

func TestDPoPReplay(t *testing.T) { redistest.EachEngine(t, testDPoPReplay) }

func testDPoPReplay(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	// Two replicas, two connections to one Redis.
	a, b := open(t, srv).DPoPReplay(), open(t, srv).DPoPReplay()
	ctx := t.Context()
	if fresh, err := a.Remember(ctx, "id-1", time.Minute); err != nil || !fresh {
		t.Fatalf("first: %v %v", fresh, err)
	}
	for name, s := range map[string]interface {
		Remember(context.Context, string, time.Duration) (bool, error)
	}{"same replica": a, "other replica": b} {
		if fresh, err := s.Remember(ctx, "id-1", time.Minute); err != nil || fresh {
			t.Fatalf("%s: replay %v %v", name, fresh, err)
		}
	}
	if fresh, err := b.Remember(ctx, "id-2", time.Minute); err != nil || !fresh {
		t.Fatalf("another id: %v %v", fresh, err)
	}
	// Remembered for its ttl only.
	if fresh, err := a.Remember(ctx, "short", 50*time.Millisecond); err != nil || !fresh {
		t.Fatal(fresh, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		fresh, err := b.Remember(ctx, "short", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if fresh {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("not forgotten after its ttl")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDPoPReplayFailsClosed(t *testing.T) { redistest.EachEngine(t, testDPoPReplayFailsClosed) }

func testDPoPReplayFailsClosed(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	c := open(t, srv)
	srv.Stop()
	fresh, err := c.DPoPReplay().Remember(t.Context(), "id", time.Minute)
	var refused *svcerrors.AdmissionRefused
	if fresh || !errors.Is(err, store.ErrUnavailable) || !errors.As(err, &refused) {
		t.Fatalf("Remember = %v, %v; want an error matching store.ErrUnavailable", fresh, err)
	}
	srv.Restart()
	waitUp(t, c)
	if fresh, err := c.DPoPReplay().Remember(t.Context(), "id", time.Minute); err != nil || !fresh {
		t.Fatalf("after recovery: %v %v", fresh, err)
	}
}

// A proof one replica accepted is refused by another on the same Redis,
// and a proof no replica can check for replay is refused 503.
func TestDPoPProofReplayAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	verifier := func() *dpop.Verifier {
		v, err := dpop.New(dpop.Store(open(t, srv).DPoPReplay()))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a, b := verifier(), verifier()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	const url = "http://api.example/orders"
	proof := func(jti string) *http.Request {
		claims, _ := json.Marshal(map[string]any{"jti": jti, "htm": "GET", "htu": url, "iat": time.Now().Unix()})
		jws, err := signer.Sign(claims)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := jws.CompactSerialize()
		r := httptest.NewRequest("GET", url, nil)
		r.Header.Set("DPoP", s)
		return r
	}
	r := proof("once")
	if _, err := a.Verify(r, ""); err != nil {
		t.Fatal(err)
	}
	var e *dpop.Error
	if _, err := b.Verify(r, ""); !errors.As(err, &e) || e.Reason != dpop.ReasonReplayed {
		t.Fatalf("replay on the other replica: %v", err)
	}
	srv.Stop()
	if _, err := b.Verify(proof("during the outage"), ""); !errors.As(err, &e) || e.Reason != dpop.ReasonUnavailable ||
		!errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Redis down: %v", err)
	}
}
