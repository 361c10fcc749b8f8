package interop_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/test/internal/oidcprovider"
)

// svc's inbound JWT verifier against tokens issued by a real authorization
// server nobody here wrote: the npm oidc-provider, started on loopback. The
// verifier finds the keys by discovery from the provider's issuer alone.

// openDiscover builds a Discover verifier for p, opens it and waits for its
// keys. The retry interval is short so a rotation test need not wait for
// it; every count below is still exact, because nothing but a token naming
// an unknown kid asks for a fetch within the hour-long refresh interval.
func openDiscover(t *testing.T, p *oidcprovider.Provider) *bearer.JWTVerifier {
	t.Helper()
	v := bearer.New(p.Issuer, p.Resource, bearer.RetryInterval(time.Millisecond))
	if err := v.Open(context.Background()); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := v.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	tok := p.Token(t, "read")
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, err := v.Verify(context.Background(), tok)
		if err == nil {
			return v
		}
		if !errors.Is(err, bearer.ErrKeysUnavailable) || time.Now().After(deadline) {
			t.Fatalf("first verification: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestVerifierAcceptsTokensOfARealProvider(t *testing.T) {
	for _, alg := range []string{"ES256", "RS256"} {
		t.Run(alg, func(t *testing.T) {
			p := oidcprovider.Start(t, oidcprovider.Options{SigningAlg: alg})
			v := openDiscover(t, p)
			g, err := authn.New(v)
			if err != nil {
				t.Fatal(err)
			}
			if got := g.DiscoveryURL(); got != p.Issuer+"/.well-known/openid-configuration" {
				t.Errorf("DiscoveryURL = %q", got)
			}

			principal, err := v.Verify(context.Background(), p.Token(t, "read admin"))
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if !principal.Authenticated || principal.Issuer != p.Issuer || principal.Subject == "" {
				t.Fatalf("principal = %+v", principal)
			}
			if !principal.Scopes.Has("read", "admin") || principal.Scopes.Has("write") {
				t.Errorf("scopes = %v, want read admin", principal.Scopes.List())
			}
			c := principal.Claims
			if len(c.Audience) == 0 || c.Audience[0] != p.Resource || c.Expiry.IsZero() || c.ID == "" {
				t.Errorf("claims = %+v", c)
			}
			var clientID string
			if err := c.Decode("client_id", &clientID); err != nil || clientID != p.ClientID {
				t.Errorf("client_id = %q, %v", clientID, err)
			}
		})
	}
}

func TestVerifierRefusesARealProvidersTokenForAnotherAudience(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	v := openDiscover(t, p)
	_, err := v.Verify(context.Background(), p.TokenFor(t, "https://other.svc.test", "read"))
	var te *bearer.TokenError
	if !errors.As(err, &te) || te.Reason != bearer.ReasonAudience || !te.Signed {
		t.Fatalf("err = %v, want a signed token refused for its audience", err)
	}
	// A verifier trusting the same keys under another issuer (here a
	// trailing slash) refuses the token for its issuer.
	other := bearer.JWKSURL(p.JWKSURI, p.Issuer+"/", p.Resource)
	if err := other.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close(context.Background()) })
	tok := p.Token(t, "read")
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, err = other.Verify(context.Background(), tok)
		if !errors.Is(err, bearer.ErrKeysUnavailable) || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !errors.As(err, &te) || te.Reason != bearer.ReasonIssuer {
		t.Fatalf("err = %v, want issuer", err)
	}
}

func TestVerifierPicksUpRotatedKeys(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	v := openDiscover(t, p)
	before := p.Token(t, "read")
	if _, err := v.Verify(context.Background(), before); err != nil {
		t.Fatal(err)
	}
	oldKid := p.KeyID(t)

	// Rotation keeping the old key: the new kid is unknown, so one refresh
	// is made and the token verifies; the old token still does.
	p.RotateKeys(t, true)
	if p.KeyID(t) == oldKid {
		t.Fatal("the provider did not rotate")
	}
	fetches := p.JWKSRequests()
	afterKeep := p.Token(t, "read")
	if _, err := v.Verify(context.Background(), afterKeep); err != nil {
		t.Fatalf("token of the rotated key: %v", err)
	}
	if got := p.JWKSRequests() - fetches; got != 1 {
		t.Fatalf("%d JWKS fetches for one rotation, want 1", got)
	}
	if _, err := v.Verify(context.Background(), before); err != nil {
		t.Fatalf("token of the kept old key: %v", err)
	}
	// A token of a known kid costs no fetch (and a repeated one no work).
	fetches = p.JWKSRequests()
	for range 10 {
		if _, err := v.Verify(context.Background(), p.Token(t, "read")); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.JWKSRequests() - fetches; got != 0 {
		t.Fatalf("known kids caused %d fetches", got)
	}

	// Rotation dropping the old keys: once a refresh has seen the new set,
	// tokens of the dropped keys are refused, cached or not.
	p.RotateKeys(t, false)
	if _, err := v.Verify(context.Background(), p.Token(t, "read")); err != nil {
		t.Fatalf("token after the second rotation: %v", err)
	}
	for name, tok := range map[string]string{"first key": before, "second key": afterKeep} {
		_, err := v.Verify(context.Background(), tok)
		var te *bearer.TokenError
		if !errors.As(err, &te) || te.Reason != bearer.ReasonUnknownKey {
			t.Errorf("token of the dropped %s: %v, want unknown-key", name, err)
		}
	}
}
