package interop_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
	"github.com/svckit/svc/test/internal/oidcprovider"
)

// The outbound token client against a real authorization server nobody
// here wrote: the npm oidc-provider, started on loopback.

const (
	ocPostClient   = "svc-post-client"
	ocPostSecret   = "post-secret-value"
	ocKeyClient    = "svc-key-client"
	ocKeyClientEP  = "svc-key-client-endpoint-aud"
	ocDownstream   = "https://down.svc.test"
	ocSubjectScope = "read write"
)

// ocClock is a clock the tests move by hand, so refresh needs no sleeping.
type ocClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *ocClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *ocClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type ocKey struct {
	pem  []byte
	jwks json.RawMessage
	pub  *rsa.PublicKey
}

func newOCKey(t *testing.T, kid string) ocKey {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: kid, Algorithm: "RS256", Use: "sig"}}})
	return ocKey{pem: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), jwks: jwks, pub: &key.PublicKey}
}

// ocProvider starts one provider with a client for each authentication
// method.
func ocProvider(t *testing.T, keys map[string]ocKey) *oidcprovider.Provider {
	return oidcprovider.Start(t, oidcprovider.Options{Clients: []oidcprovider.Client{
		{ID: ocPostClient, Secret: ocPostSecret, AuthMethod: "client_secret_post"},
		{ID: ocKeyClient, AuthMethod: "private_key_jwt", JWKS: keys[ocKeyClient].jwks},
		{ID: ocKeyClientEP, AuthMethod: "private_key_jwt", JWKS: keys[ocKeyClientEP].jwks},
	}})
}

func ocClient(t *testing.T, p *oidcprovider.Provider, clk *ocClock, opts ...oauthclient.Option) *oauthclient.Client {
	t.Helper()
	base := []oauthclient.Option{oauthclient.WithoutEnv(), oauthclient.Issuer(p.Issuer), oauthclient.Clock(clk.Now)}
	c, err := oauthclient.New(append(base, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := c.Open(context.Background()); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// ocVerify checks an access token's signature against the provider's JWKS
// and returns its claims.
func ocVerify(t *testing.T, p *oidcprovider.Provider, token string) map[string]any {
	t.Helper()
	resp, err := http.Get(p.JWKSURI)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256, jose.RS256})
	if err != nil {
		t.Fatalf("access token: %v", err)
	}
	keys := set.Key(tok.Headers[0].KeyID)
	if len(keys) == 0 {
		t.Fatalf("no key %q in the JWKS", tok.Headers[0].KeyID)
	}
	claims := map[string]any{}
	if err := tok.Claims(keys[0].Key, &claims); err != nil {
		t.Fatalf("access token signature: %v", err)
	}
	return claims
}

func TestOAuthClientInterop(t *testing.T) {
	keys := map[string]ocKey{ocKeyClient: newOCKey(t, "k1"), ocKeyClientEP: newOCKey(t, "k2")}
	p := ocProvider(t, keys)

	cases := []struct {
		name, clientID, authz string
		opts                  []oauthclient.Option
	}{
		{"client_secret_basic", oidcprovider.DefaultClientID, "Basic", []oauthclient.Option{
			oauthclient.ClientID(oidcprovider.DefaultClientID), oauthclient.ClientSecret(secret.String(oidcprovider.DefaultClientSecret))}},
		{"client_secret_post", ocPostClient, "", []oauthclient.Option{
			oauthclient.ClientID(ocPostClient), oauthclient.ClientSecret(ocPostSecret), oauthclient.Secret(oauthclient.Post)}},
		{"private_key_jwt, issuer audience (RFC 7523bis)", ocKeyClient, "", []oauthclient.Option{
			oauthclient.ClientID(ocKeyClient), oauthclient.PrivateKey(keys[ocKeyClient].pem, oauthclient.KeyID("k1"))}},
		{"private_key_jwt, token endpoint audience", ocKeyClientEP, "", []oauthclient.Option{
			oauthclient.ClientID(ocKeyClientEP), oauthclient.PrivateKey(keys[ocKeyClientEP].pem, oauthclient.AudienceTokenEndpoint)}},
	}
	for _, tc := range cases {
		t.Run("client_credentials/"+tc.name, func(t *testing.T) {
			p.ResetCounters(t)
			clk := &ocClock{now: time.Now()}
			c := ocClient(t, p, clk, tc.opts...)
			api, err := oauthclient.ClientCredentials("api", oauthclient.WithoutEnv(), oauthclient.WithClient(c),
				oauthclient.Resource(p.Resource), oauthclient.Scopes("read"))
			if err != nil {
				t.Fatal(err)
			}
			tok, err := api.Token(context.Background())
			if err != nil {
				t.Fatalf("Token: %v", err)
			}
			claims := ocVerify(t, p, tok.Value)
			if claims["aud"] != p.Resource || claims["client_id"] != tc.clientID || claims["scope"] != "read" || tok.TokenType != "Bearer" {
				t.Fatalf("claims %v", claims)
			}
			log := p.TokenRequestLog(t)
			if len(log) != 1 || log[0].Status != 200 || log[0].Authorization != tc.authz {
				t.Fatalf("token requests %+v", log)
			}
			if tc.authz == "Basic" && log[0].BasicClientID != tc.clientID {
				t.Fatalf("basic client id %q", log[0].BasicClientID)
			}

			// Cached, then refreshed ahead of expiry (the provider's tokens
			// live 10 minutes; the refresh window is one minute).
			if again, _ := api.Token(context.Background()); again.Value != tok.Value || p.TokenRequests() != 1 {
				t.Fatal("the token was not cached")
			}
			clk.Advance(9*time.Minute + time.Second)
			if during, _ := api.Token(context.Background()); during.Value != tok.Value {
				t.Fatal("the cached token was not served during the refresh")
			}
			deadline := time.Now().Add(20 * time.Second)
			for {
				next, err := api.Token(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if next.Value != tok.Value {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("no refresh")
				}
				time.Sleep(5 * time.Millisecond)
			}
			if n := p.TokenRequests(); n != 2 {
				t.Fatalf("token requests %d, want 2", n)
			}
		})
	}

	t.Run("token exchange (RFC 8693)", func(t *testing.T) {
		p.ResetCounters(t)
		c := ocClient(t, p, &ocClock{now: time.Now()},
			oauthclient.ClientID(oidcprovider.DefaultClientID), oauthclient.ClientSecret(oidcprovider.DefaultClientSecret))
		orders, err := oauthclient.TokenExchange("orders", oauthclient.WithoutEnv(), oauthclient.WithClient(c),
			oauthclient.Audience(ocDownstream), oauthclient.Scopes("read"))
		if err != nil {
			t.Fatal(err)
		}
		subject := p.Token(t, ocSubjectScope) // the caller's verified token
		p.ResetCounters(t)
		tok, err := orders.TokenFor(context.Background(), subject)
		if err != nil {
			t.Fatalf("TokenFor: %v", err)
		}
		claims := ocVerify(t, p, tok.Value)
		subjectClaims := ocVerify(t, p, subject)
		if claims["aud"] != ocDownstream || claims["sub"] != subjectClaims["sub"] || claims["scope"] != "read" {
			t.Fatalf("exchanged claims %v", claims)
		}
		if again, _ := orders.TokenFor(context.Background(), subject); again.Value != tok.Value || p.TokenRequests() != 1 {
			t.Fatal("the exchanged token was not cached for the caller")
		}

		// Through the transport, to an API that reads the token.
		var seen string
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = r.Header.Get("Authorization") }))
		defer api.Close()
		resp, err := orders.ClientFor(subject).Get(api.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if seen != "Bearer "+tok.Value {
			t.Fatal("the transport did not send the exchanged token")
		}

		// A caller token the server will not exchange is refused for that
		// token only.
		_, err = orders.TokenFor(context.Background(), "not-a-jwt")
		var tr *oauthclient.TokenRefusedError
		if !errors.As(err, &tr) || tr.Code != "invalid_grant" {
			t.Fatalf("opaque caller: %v", err)
		}
		if _, err := orders.TokenFor(context.Background(), subject); err != nil {
			t.Fatalf("the refusal spread to another caller: %v", err)
		}

		// The service names itself as the actor (RFC 8693 §2.1, issue 22
		// item 1): the issued token keeps the caller as sub and the
		// service in act.
		self, err := oauthclient.ClientCredentials("self", oauthclient.WithoutEnv(), oauthclient.WithClient(c),
			oauthclient.Resource(p.Resource), oauthclient.Scopes("read"))
		if err != nil {
			t.Fatal(err)
		}
		acting, err := oauthclient.TokenExchange("orders-acting", oauthclient.WithoutEnv(), oauthclient.WithClient(c),
			oauthclient.Audience(ocDownstream), oauthclient.Scopes("read"), oauthclient.Actor(self))
		if err != nil {
			t.Fatal(err)
		}
		actTok, err := acting.TokenFor(context.Background(), subject)
		if err != nil {
			t.Fatalf("TokenFor with an actor: %v", err)
		}
		selfTok, err := self.Token(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		actClaims := ocVerify(t, p, actTok.Value)
		act, _ := actClaims["act"].(map[string]any)
		if actClaims["sub"] != subjectClaims["sub"] || act == nil || act["sub"] != ocVerify(t, p, selfTok.Value)["sub"] {
			t.Fatalf("exchanged claims with an actor %v", actClaims)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		clk := &ocClock{now: time.Now()}
		c := ocClient(t, p, clk, oauthclient.ClientID(ocPostClient), oauthclient.ClientSecret("wrong-secret-value"))
		api, _ := oauthclient.ClientCredentials("api", oauthclient.WithoutEnv(), oauthclient.WithClient(c))
		_, err := api.Token(context.Background())
		var cr *oauthclient.ClientRejectedError
		if !errors.As(err, &cr) || cr.Code != "invalid_client" {
			t.Fatalf("wrong secret: %v", err)
		}
		// The server's own words are carried (issue 34 item 7), the
		// secret never.
		if !strings.Contains(err.Error(), `it says "client authentication failed"`) || strings.Contains(err.Error(), "wrong-secret-value") {
			t.Fatalf("error lacks the server's description or repeats the secret: %v", err)
		}

		// The real server refuses an issuer-audience assertion from a key
		// it does not know; the error says what to try.
		stranger := newOCKey(t, "k9")
		c2 := ocClient(t, p, clk, oauthclient.ClientID(ocKeyClient), oauthclient.PrivateKey(stranger.pem))
		api2, _ := oauthclient.ClientCredentials("api", oauthclient.WithoutEnv(), oauthclient.WithClient(c2))
		if _, err := api2.Token(context.Background()); !errors.As(err, &cr) || !strings.Contains(err.Error(), "AudienceTokenEndpoint") {
			t.Fatalf("unknown key: %v", err)
		}

		// 503 with Retry-After, injected in front of the real server.
		c3 := ocClient(t, p, clk, oauthclient.ClientID(oidcprovider.DefaultClientID), oauthclient.ClientSecret(oidcprovider.DefaultClientSecret))
		api3, _ := oauthclient.ClientCredentials("api", oauthclient.WithoutEnv(), oauthclient.WithClient(c3))
		p.ResetCounters(t)
		p.FailTokenRequests(t, 1, 503, "30", "temporarily_unavailable")
		_, err = api3.Token(context.Background())
		var ue *oauthclient.UnavailableError
		if !errors.As(err, &ue) || ue.Reason != "retry_after" || ue.RetryAfter != 30*time.Second {
			t.Fatalf("503: %v", err)
		}
		if _, err := api3.Token(context.Background()); err == nil || p.TokenRequests() != 1 {
			t.Fatal("asked again before Retry-After")
		}
		clk.Advance(30 * time.Second)
		if _, err := api3.Token(context.Background()); err != nil {
			t.Fatalf("after Retry-After: %v", err)
		}
	})

	t.Run("an API refusing the token gets a fresh one once", func(t *testing.T) {
		c := ocClient(t, p, &ocClock{now: time.Now()},
			oauthclient.ClientID(oidcprovider.DefaultClientID), oauthclient.ClientSecret(oidcprovider.DefaultClientSecret))
		api, _ := oauthclient.ClientCredentials("api", oauthclient.WithoutEnv(), oauthclient.WithClient(c))
		first, err := api.Token(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var seen []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization"))
			mu.Unlock()
			if r.Header.Get("Authorization") == "Bearer "+first.Value {
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
				w.WriteHeader(401)
				return
			}
			io.WriteString(w, "ok")
		}))
		defer srv.Close()
		resp, err := api.Client().Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || len(seen) != 2 || seen[1] == seen[0] {
			t.Fatalf("status %d, API saw %d requests", resp.StatusCode, len(seen))
		}
		ocVerify(t, p, strings.TrimPrefix(seen[1], "Bearer "))
	})
}
