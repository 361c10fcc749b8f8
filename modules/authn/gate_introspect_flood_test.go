package authn_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/flood"
)

// Issue 37 item 11: random opaque strings each cost an introspection
// request. An inactive answer a caller's request fetched spends its flood
// budget and counts toward its ban, as a forged signature does, so a
// client sending many distinct inactive tokens is limited: past the
// limit, its tokens are refused without a request to the endpoint.
func TestInactiveTokensLimitTheirSender(t *testing.T) {
	inactive := answerJSON(200, map[string]any{"active": false})
	const sender, other = "198.51.100.9", "198.51.100.10"
	token := func(i int) string { return fmt.Sprintf("%s-%d", gateOpaque, i) }

	t.Run("flood", func(t *testing.T) {
		v, n := introspectingGateVerifier(t, inactive)
		srv := gateServerBehind(t, []string{"127.0.0.1/32"}, nil, exampleRouter(), v,
			authn.Flood(flood.New(flood.Rate(0.001), flood.Burst(3))))
		// Three inactive answers spend the burst; the fourth finds it
		// spent, and from then on the sender gets no introspection.
		for i := range 4 {
			if got := do(t, srv, "GET", "/me", from(sender, bearerHeader(token(i))), ""); got.status != 401 || got.json["reason"] != "inactive" {
				t.Fatalf("token %d: %d %s", i, got.status, got.body)
			}
		}
		for i := 4; i < 30; i++ {
			got := do(t, srv, "GET", "/me", from(sender, bearerHeader(token(i))), "")
			wait, _ := strconv.Atoi(got.header.Get("Retry-After"))
			if got.status != 429 || got.json["type"] != docs+"rate-limit-exceeded" || wait < 1 {
				t.Fatalf("token %d: %d %v %s", i, got.status, got.header, got.body)
			}
		}
		if got := n.Load(); got != 4 {
			t.Fatalf("%d introspection requests for 30 tokens, want 4", got)
		}
		// A token already answered is still answered, from the cache.
		if got := do(t, srv, "GET", "/me", from(sender, bearerHeader(token(0))), ""); got.status != 401 || got.json["reason"] != "inactive" {
			t.Fatalf("cached token: %d %s", got.status, got.body)
		}
		// Another caller's tokens are introspected as before.
		if got := do(t, srv, "GET", "/me", from(other, bearerHeader(token(99))), ""); got.status != 401 || n.Load() != 5 {
			t.Fatalf("another caller: %d, %d requests", got.status, n.Load())
		}
	})

	t.Run("bans", func(t *testing.T) {
		v, n := introspectingGateVerifier(t, inactive)
		srv := gateServerBehind(t, []string{"127.0.0.1/32"}, nil, exampleRouter(), v,
			authn.Bans(bans.New(bans.Threshold(3), bans.Duration(time.Minute))))
		// One token sent again and again costs one request and counts
		// once: the cache answers the rest.
		for range 5 {
			if got := do(t, srv, "GET", "/me", from(other, bearerHeader(token(100))), ""); got.status != 401 {
				t.Fatalf("repeated token: %d %s", got.status, got.body)
			}
		}
		for i := range 3 {
			if got := do(t, srv, "GET", "/me", from(sender, bearerHeader(token(i))), ""); got.status != 401 {
				t.Fatalf("token %d: %d %s", i, got.status, got.body)
			}
		}
		for i := 3; i < 30; i++ {
			got := do(t, srv, "GET", "/me", from(sender, bearerHeader(token(i))), "")
			if got.status != 429 || got.json["type"] != docs+"client-banned" || got.header.Get("Retry-After") != "60" {
				t.Fatalf("token %d: %d %v %s", i, got.status, got.header, got.body)
			}
		}
		if got := n.Load(); got != 4 {
			t.Fatalf("%d introspection requests, want 4 (one repeated token, three distinct)", got)
		}
		if got := do(t, srv, "GET", "/me", from(other, bearerHeader(token(101))), ""); got.status != 401 || n.Load() != 5 {
			t.Fatalf("the caller that repeated one token: %d, %d requests", got.status, n.Load())
		}
	})
}

// Issue 37 item 11: an opaque token sent to a gate whose verifier
// introspects none is refused saying so, where it used to be only
// "malformed"; a token with the dots of a JWS or JWE is judged as before.
func TestOpaqueTokenWhereNoIssuerIntrospects(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	one := bearer.KeySet(gateIssuer, gateAud, []crypto.PublicKey{&key.PublicKey})
	if err := one.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { one.Close(context.Background()) })
	const detail = "The bearer token is opaque (not a JWT), and this service introspects no issuer's opaque tokens. Send a JWT access token from a trusted issuer."
	for name, v := range map[string]bearer.Verifier{"one issuer": one, "Issuers": bearer.Issuers(one)} {
		srv := gateServer(t, nil, exampleRouter(), v)
		for _, tt := range []struct{ token, detail string }{
			{"ory_at_dGhpcyBpcyBvcGFxdWU.c2lnbmF0dXJl", detail}, // Ory Hydra's shape
			{"2YotnFZFEjr1zCsicMWpAA", detail},                  // RFC 6749's example
			{"a.b.c", "The bearer token did not verify (malformed). Get a new token rather than retrying this one."},
		} {
			got := do(t, srv, "GET", "/me", bearerHeader(tt.token), "")
			if got.status != http.StatusUnauthorized || got.json["type"] != docs+"token-rejected" ||
				got.json["reason"] != "malformed" || got.json["detail"] != tt.detail ||
				got.header.Get("WWW-Authenticate") != `Bearer error="invalid_token"` {
				t.Fatalf("%s, %s: %d %v %s", name, tt.token, got.status, got.header, got.body)
			}
		}
	}
}
