package authnoidc_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnoidc"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
)

func TestVerifierMapsGoOIDCResults(t *testing.T) {
	iss := authntest.NewIssuer(t)
	provider, err := oidc.NewProvider(context.Background(), iss.URL)
	if err != nil {
		t.Fatal(err)
	}
	v := authnoidc.Verifier(provider.Verifier(&oidc.Config{ClientID: iss.Audience, SupportedSigningAlgs: []string{"ES256"}}))

	good := iss.Token(authntest.Subject("alice"), authntest.Scopes("read", "write"))
	p, err := v.Verify(context.Background(), good)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if !p.Authenticated || p.Subject != "alice" || p.Issuer != iss.URL || !p.Scopes.Has("read", "write") || p.Claims.Expiry.IsZero() {
		t.Fatalf("principal = %+v", p)
	}
	var jti string
	if err := p.Claims.Decode("jti", &jti); err != nil || jti == "" {
		t.Fatalf("raw claims not carried: %v", err)
	}

	cases := []struct {
		name   string
		token  string
		reason bearer.Reason
	}{
		{"expired", iss.Token(authntest.Expires(time.Now().Add(-time.Hour))), bearer.ReasonExpired},
		{"other audience", iss.Token(authntest.Audience("https://other.example")), bearer.ReasonAudience},
		{"other issuer", iss.Token(authntest.Claim("iss", "https://evil.example")), bearer.ReasonIssuer},
		{"not yet valid", iss.Token(authntest.NotBefore(time.Now().Add(time.Hour))), bearer.ReasonNotYetValid},
		{"forged", good[:len(good)-4] + "AAAA", bearer.ReasonSignature},
		{"not a JWT", "not-a-token", bearer.ReasonMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), c.token)
			var te *bearer.TokenError
			if !errors.As(err, &te) || te.Reason != c.reason {
				t.Fatalf("error = %v, want reason %s", err, c.reason)
			}
		})
	}
}

func TestVerifierAnswersUnavailableWhenKeysCannotBeFetched(t *testing.T) {
	iss := authntest.NewIssuer(t)
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	keys := oidc.NewRemoteKeySet(context.Background(), dead.URL+"/jwks")
	v := authnoidc.Verifier(oidc.NewVerifier(iss.URL, keys, &oidc.Config{ClientID: iss.Audience, SupportedSigningAlgs: []string{"ES256"}}))
	if _, err := v.Verify(context.Background(), iss.Token()); !errors.Is(err, bearer.ErrKeysUnavailable) {
		t.Fatalf("error = %v, want ErrKeysUnavailable (an outage must not count toward bans)", err)
	}
}

func TestGateServesTheAdaptedVerifier(t *testing.T) {
	iss := authntest.NewIssuer(t)
	provider, err := oidc.NewProvider(context.Background(), iss.URL)
	if err != nil {
		t.Fatal(err)
	}
	g, err := authn.New(authnoidc.Verifier(provider.Verifier(&oidc.Config{ClientID: iss.Audience, SupportedSigningAlgs: []string{"ES256"}})))
	if err != nil {
		t.Fatal(err)
	}
	h, err := g.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := authn.PrincipalFrom(r.Context())
		_, _ = w.Write([]byte(p.Subject))
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		token string
		code  int
	}{{iss.Token(authntest.Subject("bob")), 200}, {"", 401}, {iss.Token(authntest.Expires(time.Now().Add(-time.Hour))), 401}} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/x", nil)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		h.ServeHTTP(rec, req)
		if rec.Code != c.code {
			t.Fatalf("token %t: %d %s", c.token != "", rec.Code, rec.Body)
		}
		if c.code == 200 && rec.Body.String() != "bob" {
			t.Fatalf("body %q", rec.Body)
		}
	}
}
