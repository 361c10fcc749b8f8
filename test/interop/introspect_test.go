package interop_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
	"github.com/svckit/svc/test/internal/oidcprovider"
)

// The clients of the introspection interop: one whose tokens are opaque,
// and the API's own, which introspects them (signed answers or plain).
const (
	opaqueApp        = "opaque-app"
	introspector     = "orders-api"
	plainIntrospect  = "orders-api-plain"
	introspectSecret = "orders-api-secret"
)

// opaqueProvider is an oidc-provider issuing opaque tokens to opaqueApp,
// answering introspection with signed JWTs when signed is true.
func opaqueProvider(t *testing.T, signed bool) *oidcprovider.Provider {
	t.Helper()
	return oidcprovider.Start(t, oidcprovider.Options{
		Resource:         "https://orders.svc.test",
		JWTIntrospection: signed,
		Clients: []oidcprovider.Client{
			{ID: opaqueApp, Secret: "opaque-app-secret", OpaqueAccessTokens: true},
			{ID: introspector, Secret: introspectSecret},
			{ID: plainIntrospect, Secret: introspectSecret, AuthMethod: "client_secret_post"},
		},
	})
}

func opaqueToken(t *testing.T, p *oidcprovider.Provider, scope string) string {
	t.Helper()
	res := p.PostToken(t, url.Values{"grant_type": {"client_credentials"}, "scope": {scope}}, opaqueApp, "opaque-app-secret")
	if res.Status != http.StatusOK || res.AccessToken == "" {
		t.Fatalf("opaque token: %d %s", res.Status, res.Body)
	}
	if strings.Contains(res.AccessToken, ".") {
		t.Fatalf("the token is not opaque: %.20s…", res.AccessToken)
	}
	return res.AccessToken
}

// introspectingGate is a chi app behind a gate whose one verifier takes
// both the provider's JWTs and its opaque tokens, the introspection
// endpoint found by discovery.
func introspectingGate(t *testing.T, p *oidcprovider.Provider, clientID string, opts ...bearer.VerifierOption) (*httptest.Server, *bearer.JWTVerifier) {
	t.Helper()
	client, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.Issuer(p.Issuer),
		oauthclient.ClientID(clientID), oauthclient.ClientSecret(secret.String(introspectSecret)))
	if err != nil {
		t.Fatal(err)
	}
	v := bearer.New(p.Issuer, p.Resource, append([]bearer.VerifierOption{bearer.RetryInterval(time.Millisecond),
		bearer.Introspect("", client)}, opts...)...)
	if err := v.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close(context.Background()) })
	if err := authntest.WaitReady(v, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.With(authn.Require("read")).Get("/orders", func(w http.ResponseWriter, r *http.Request) {
		p, _ := authn.PrincipalFrom(r.Context())
		var clientID string
		_ = p.Claims.Decode("client_id", &clientID)
		_, _ = io.WriteString(w, clientID)
	})
	gate, err := authn.New(v)
	if err != nil {
		t.Fatal(err)
	}
	h, err := gate.Handler(r)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svcerrors.New().Middleware(h))
	t.Cleanup(srv.Close)
	return srv, v
}

func getOrders(t *testing.T, srv *httptest.Server, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/orders", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Issue 20: oidc-provider's opaque tokens pass the gate through its
// introspection endpoint, both as plain JSON (client_secret_post) and as
// RFC 9701 signed answers verified with its keys (client_secret_basic);
// the same verifier still takes its JWTs; a cached answer costs no
// request, a scope the token lacks is refused, a revoked token is refused
// once the answer is stale.
func TestOpaqueTokensOfARealProvider(t *testing.T) {
	for _, clientID := range []string{introspector, plainIntrospect} {
		t.Run(clientID, func(t *testing.T) {
			wantSigned := clientID == introspector
			p := opaqueProvider(t, wantSigned)
			srv, v := introspectingGate(t, p, clientID, bearer.IntrospectionTTL(time.Second))
			if got := bearer.IntrospectionEndpoint(v); got != p.IntrospectionEndpoint || p.IntrospectionEndpoint == "" {
				t.Fatalf("discovered %q, provider's %q", got, p.IntrospectionEndpoint)
			}
			tok := opaqueToken(t, p, "read")
			if signed := answersSigned(t, p, clientID, tok); signed != wantSigned {
				t.Fatalf("the provider signs answers for %s: %v, want %v", clientID, signed, wantSigned)
			}
			p.ResetCounters(t)
			for range 3 {
				if status, body := getOrders(t, srv, tok); status != 200 || body != opaqueApp {
					t.Fatalf("opaque token: %d %s", status, body)
				}
			}
			if n := p.IntrospectionRequests(); n != 1 {
				t.Fatalf("%d introspections for three requests, want 1", n)
			}
			if status, _ := getOrders(t, srv, p.Token(t, "read")); status != 200 {
				t.Fatalf("a JWT of the same issuer: %d", status)
			}
			if status, body := getOrders(t, srv, opaqueToken(t, p, "write")); status != 403 {
				t.Fatalf("without the scope: %d %s", status, body)
			}
			if status, body := getOrders(t, srv, "unknown-opaque-token-0123456789"); status != 401 || !strings.Contains(body, `"reason":"inactive"`) {
				t.Fatalf("an unknown token: %d %s", status, body)
			}
			revoke(t, p, tok)
			deadline := time.Now().Add(15 * time.Second)
			for {
				status, _ := getOrders(t, srv, tok)
				if status == 401 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the revoked token still passes: %d", status)
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

// Issue 20: 1,000 concurrent requests with one cold opaque token cause one
// introspection request at the real provider.
func TestOneIntrospectionForAThousandCallers(t *testing.T) {
	p := opaqueProvider(t, true)
	_, v := introspectingGate(t, p, introspector)
	tok := opaqueToken(t, p, "read")
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for range 1000 {
		wg.Go(func() {
			if _, err := v.Verify(t.Context(), tok); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := p.IntrospectionRequests(); n != 1 {
		t.Fatalf("%d introspections, want 1", n)
	}
}

// A client the provider does not know cannot introspect: 503, not 401,
// and the secret is in no error.
func TestIntrospectionWithAWrongSecretFailsClosed(t *testing.T) {
	p := opaqueProvider(t, false)
	client, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.Issuer(p.Issuer),
		oauthclient.ClientID(introspector), oauthclient.ClientSecret("not-the-secret"))
	if err != nil {
		t.Fatal(err)
	}
	v := bearer.New(p.Issuer, p.Resource, bearer.Introspect("", client))
	if err := v.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close(context.Background()) })
	if err := authntest.WaitReady(v, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(t.Context(), opaqueToken(t, p, "read"))
	if !errors.Is(err, bearer.ErrIntrospectionUnavailable) || strings.Contains(err.Error(), "not-the-secret") {
		t.Fatalf("got %v", err)
	}
}

// answersSigned asks the introspection endpoint as the verifier does and
// reports whether the answer is an RFC 9701 JWT.
func answersSigned(t *testing.T, p *oidcprovider.Provider, clientID, token string) bool {
	t.Helper()
	form := url.Values{"token": {token}}
	if clientID == plainIntrospect {
		form.Set("client_id", clientID)
		form.Set("client_secret", introspectSecret)
	}
	req, _ := http.NewRequest(http.MethodPost, p.IntrospectionEndpoint, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/token-introspection+jwt, application/json;q=0.9")
	if clientID != plainIntrospect {
		req.SetBasicAuth(clientID, introspectSecret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("introspection answered %d", resp.StatusCode)
	}
	return strings.HasPrefix(resp.Header.Get("Content-Type"), "application/token-introspection+jwt")
}

// revoke revokes token at the provider (RFC 7009) as the app that holds it.
func revoke(t *testing.T, p *oidcprovider.Provider, token string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(p.TokenEndpoint, "/token")+"/token/revocation",
		strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(opaqueApp, "opaque-app-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("revocation answered %d", resp.StatusCode)
	}
}
