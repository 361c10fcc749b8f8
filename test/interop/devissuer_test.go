package interop_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/dpop"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
	"github.com/svckit/svc/test/internal/oidcprovider"
)

// The clients both authorization servers register, alike.
const (
	sameApp, sameAppSecret       = "svc-app", "svc-app-secret"
	sameOpaque, sameOpaqueSecret = "svc-opaque", "svc-opaque-secret"
	sameKeyClient                = "svc-key"
	sameAudience                 = "https://ledger.svc.test"
)

// sameTarget is an authorization server the same client code runs against.
type sameTarget struct {
	name, issuer string
}

// Issue 33: the same svc client and gate code, run against devissuer and
// against oidc-provider, gets the same answers: a bearer JWT by
// client_secret_basic and by private_key_jwt, a DPoP-bound token (with
// the server's nonce first) sent with fresh proofs, and an opaque token
// through introspection until revoked.
func TestDevissuerAnswersAsARealProvider(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})

	op := oidcprovider.Start(t, oidcprovider.Options{Resource: sameAudience, DPoPNonce: true, Clients: []oidcprovider.Client{
		{ID: sameApp, Secret: sameAppSecret},
		{ID: sameOpaque, Secret: sameOpaqueSecret, OpaqueAccessTokens: true},
		{ID: sameKeyClient, AuthMethod: "private_key_jwt", JWKS: jwks},
	}})
	dev, err := devissuer.Start(devissuer.Options{Audience: sameAudience, ClientID: sameApp, ClientSecret: sameAppSecret, DPoPNonce: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	_ = dev.Register(devissuer.Client{ID: sameOpaque, Secret: sameOpaqueSecret, OpaqueTokens: true})
	_ = dev.Register(devissuer.Client{ID: sameKeyClient, Key: &key.PublicKey})

	var answers [][]string
	for _, target := range []sameTarget{{"oidc-provider", op.Issuer}, {"devissuer", dev.URL}} {
		answers = append(answers, sameClientCode(t, target, keyPEM))
	}
	if !slices.Equal(answers[0], answers[1]) {
		t.Fatalf("oidc-provider answered\n%s\ndevissuer answered\n%s", strings.Join(answers[0], "\n"), strings.Join(answers[1], "\n"))
	}
}

// sameClientCode runs svc's client and gate against target and returns
// what each step answered.
func sameClientCode(t *testing.T, target sameTarget, keyPEM []byte) []string {
	ctx := context.Background()
	var got []string
	note := func(step string, v ...any) {
		b, _ := json.Marshal(v)
		got = append(got, step+": "+string(b))
	}
	client := func(opts ...oauthclient.Option) *oauthclient.Client {
		c, err := oauthclient.New(append([]oauthclient.Option{oauthclient.WithoutEnv(), oauthclient.Issuer(target.issuer)}, opts...)...)
		if err != nil {
			t.Fatalf("%s: %v", target.name, err)
		}
		if err := c.Open(ctx); err != nil {
			t.Fatalf("%s: %v", target.name, err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	pattern := func(c *oauthclient.Client) *oauthclient.Pattern {
		p, err := oauthclient.ClientCredentials("ledger", oauthclient.WithClient(c), oauthclient.Resource(sameAudience), oauthclient.Scopes("read"))
		if err != nil {
			t.Fatalf("%s: %v", target.name, err)
		}
		return p
	}
	app := client(oauthclient.ClientID(sameApp), oauthclient.ClientSecret(secret.String(sameAppSecret)), oauthclient.Secret(oauthclient.Basic))
	api := sameGate(t, target, app)

	for _, step := range []struct {
		name string
		c    *oauthclient.Client
	}{
		{"client_secret_basic", app},
		{"private_key_jwt", client(oauthclient.ClientID(sameKeyClient), oauthclient.PrivateKey(keyPEM))},
		{"DPoP", client(oauthclient.ClientID(sameApp), oauthclient.ClientSecret(secret.String(sameAppSecret)), oauthclient.DPoP(nil))},
	} {
		name, p := step.name, pattern(step.c)
		tok, err := p.Token(ctx)
		if err != nil {
			t.Fatalf("%s %s: %v", target.name, name, err)
		}
		route := "/balance"
		if tok.TokenType == "DPoP" {
			route = "/transfers"
		}
		for range 2 { // two requests: two fresh proofs for a DPoP token
			resp, err := p.Client().Post(api+route, "text/plain", nil)
			if err != nil {
				t.Fatalf("%s %s: %v", target.name, name, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			note(name+" "+route, tok.TokenType, resp.StatusCode, string(body))
		}
	}

	opaque := pattern(client(oauthclient.ClientID(sameOpaque), oauthclient.ClientSecret(secret.String(sameOpaqueSecret))))
	tok, err := opaque.Token(ctx)
	if err != nil {
		t.Fatalf("%s opaque: %v", target.name, err)
	}
	note("opaque token", tok.TokenType, strings.Contains(tok.Value, "."))
	note("opaque before revocation", sameGet(t, api, tok.Value))
	sameRevoke(t, target, tok.Value)
	time.Sleep(10 * time.Millisecond) // past IntrospectionTTL
	note("opaque after revocation", sameGet(t, api, tok.Value))
	return got
}

// sameGate is an API behind svc's gate for target: /balance for any
// token with scope read (answering its client_id), /transfers for a
// DPoP-bound one; opaque tokens go to the discovered introspection
// endpoint, as client c.
func sameGate(t *testing.T, target sameTarget, c *oauthclient.Client) string {
	t.Helper()
	v := bearer.New(target.issuer, sameAudience, bearer.RetryInterval(time.Millisecond), bearer.Introspect("", c), bearer.IntrospectionTTL(time.Millisecond))
	if err := v.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close(context.Background()) })
	if err := authntest.WaitReady(v, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	proofs, err := dpop.New()
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	clientID := func(w http.ResponseWriter, r *http.Request) {
		p, _ := authn.PrincipalFrom(r.Context())
		var id string
		_ = p.Claims.Decode("client_id", &id)
		_, _ = io.WriteString(w, id)
	}
	r.With(authn.Require("read")).Post("/balance", clientID)
	r.With(authn.Require("read")).Get("/balance", clientID)
	r.With(authn.RequireDPoP).Post("/transfers", clientID)
	gate, err := authn.New(v, authn.DPoP(proofs, false))
	if err != nil {
		t.Fatal(err)
	}
	h, err := gate.Handler(r)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svcerrors.New().Middleware(h))
	t.Cleanup(srv.Close)
	return srv.URL
}

func sameGet(t *testing.T, api, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, api+"/balance", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// sameRevoke revokes token at the revocation_endpoint target's discovery
// names, as the client that holds it.
func sameRevoke(t *testing.T, target sameTarget, token string) {
	t.Helper()
	resp, err := http.Get(target.issuer + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Revocation string `json:"revocation_endpoint"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if doc.Revocation == "" {
		t.Fatalf("%s names no revocation_endpoint", target.name)
	}
	req, _ := http.NewRequest(http.MethodPost, doc.Revocation, strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(sameOpaque, sameOpaqueSecret)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: revocation answered %d", target.name, resp.StatusCode)
	}
}
