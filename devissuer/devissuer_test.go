package devissuer_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/svckit/svc/devissuer"
)

func TestMintedTokensVerifyAgainstTheJWKS(t *testing.T) {
	iss, err := devissuer.Start(devissuer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer iss.Close()
	tok, err := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"admin"}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(iss.URL + "/jwks")
	if err != nil {
		t.Fatal(err)
	}
	var set jose.JSONWebKeySet
	_ = json.NewDecoder(resp.Body).Decode(&set)
	resp.Body.Close()
	parsed, err := jwt.ParseSigned(tok, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := parsed.Claims(set.Keys[0].Key, &claims); err != nil {
		t.Fatal(err)
	}
	if claims["sub"] != "alice" || claims["iss"] != iss.URL || claims["scope"] != "admin" || claims["aud"] != "svc-example" {
		t.Fatalf("claims %v", claims)
	}
}

func TestTokenEndpoint(t *testing.T) {
	iss, err := devissuer.Start(devissuer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer iss.Close()
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {"read"}}
	req, _ := http.NewRequest("POST", iss.URL+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(iss.ClientID, iss.ClientSecret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != 200 || body["token_type"] != "Bearer" || body["access_token"] == "" {
		t.Fatalf("%d %v", resp.StatusCode, body)
	}
	req, _ = http.NewRequest("POST", iss.URL+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(iss.ClientID, "wrong")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("bad secret: %d", resp.StatusCode)
	}
}

func TestRefusesNonLoopback(t *testing.T) {
	if _, err := devissuer.Start(devissuer.Options{Addr: "0.0.0.0:0"}); err == nil {
		t.Fatal("started on a non-loopback address")
	}
}

// post sends a form to the token endpoint as the issuer's client.
func post(t *testing.T, iss *devissuer.Issuer, form url.Values) (int, map[string]any) {
	t.Helper()
	status, _, body := send(t, iss.URL+"/token", form, basic(iss))
	return status, body
}

// claimsOf reads a token's claims without verifying it (the issuer's own
// tests verify signatures above).
func claimsOf(t *testing.T, tok string) map[string]any {
	t.Helper()
	parsed, err := jwt.ParseSigned(tok, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := parsed.UnsafeClaimsWithoutVerification(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

// RFC 8693: the client exchanges a caller's token for one to another
// audience; the new token keeps the caller as sub and names the client in
// act. A token it did not sign, or the wrong token type, is refused.
func TestTokenExchange(t *testing.T) {
	iss, err := devissuer.Start(devissuer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer iss.Close()
	caller, _ := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
	exchange := url.Values{
		"grant_type":         {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"subject_token":      {caller},
		"subject_token_type": {"urn:ietf:params:oauth:token-type:access_token"},
		"audience":           {"billing"},
		"scope":              {"invoices:read"},
	}
	status, body := post(t, iss, exchange)
	if status != 200 || body["token_type"] != "Bearer" {
		t.Fatalf("%d %v", status, body)
	}
	c := claimsOf(t, body["access_token"].(string))
	act, _ := c["act"].(map[string]any)
	if c["sub"] != "alice" || c["aud"] != "billing" || c["scope"] != "invoices:read" || act["sub"] != iss.ClientID {
		t.Fatalf("claims %v", c)
	}

	other, err := devissuer.Start(devissuer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	foreign, _ := other.Mint(devissuer.Token{Subject: "mallory"})
	expired, _ := iss.Mint(devissuer.Token{Subject: "alice", TTL: time.Nanosecond})
	time.Sleep(1100 * time.Millisecond) // exp is in whole seconds
	for name, c := range map[string]struct {
		token, typ, code string
	}{
		"another issuer's token": {foreign, "urn:ietf:params:oauth:token-type:access_token", "invalid_grant"},
		"an expired token":       {expired, "urn:ietf:params:oauth:token-type:access_token", "invalid_grant"},
		"not a token":            {"abc", "urn:ietf:params:oauth:token-type:access_token", "invalid_grant"},
		"an ID token type":       {caller, "urn:ietf:params:oauth:token-type:id_token", "invalid_request"},
	} {
		f := url.Values{}
		for k, v := range exchange {
			f[k] = v
		}
		f.Set("subject_token", c.token)
		f.Set("subject_token_type", c.typ)
		if status, body := post(t, iss, f); status != 400 || body["error"] != c.code || body["error_description"] == "" {
			t.Errorf("%s: %d %v", name, status, body)
		}
	}
	if status, body := post(t, iss, url.Values{"grant_type": {"password"}}); status != 400 || body["error"] != "unsupported_grant_type" {
		t.Errorf("password grant: %d %v", status, body)
	}
}

// /mint signs a token for any subject and scopes, and refuses a request
// without a subject or with a bad ttl, saying what to write.
func TestMint(t *testing.T) {
	iss, err := devissuer.Start(devissuer.Options{Audience: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	defer iss.Close()
	get := func(query string) (int, map[string]any) { return getJSON(t, iss.URL+"/mint?"+query) }
	status, body := get("sub=bob&scope=read+write&ttl=30m")
	if status != 200 || body["expires_in"] != float64(1800) || body["scope"] != "read write" {
		t.Fatalf("%d %v", status, body)
	}
	if c := claimsOf(t, body["access_token"].(string)); c["sub"] != "bob" || c["aud"] != "orders" || c["scope"] != "read write" {
		t.Fatalf("claims %v", c)
	}
	for _, q := range []string{"scope=read", "sub=bob&ttl=soon", "sub=bob&ttl=-1m"} {
		if status, body := get(q); status != 400 || body["error"] != "invalid_request" || body["error_description"] == "" {
			t.Errorf("%s: %d %v", q, status, body)
		}
	}
}

// Env prints the lines that point a service at the issuer.
func TestEnv(t *testing.T) {
	iss, err := devissuer.Start(devissuer.Options{Audience: "orders", ClientSecret: "it's"})
	if err != nil {
		t.Fatal(err)
	}
	defer iss.Close()
	want := "export SVC_AUTHN_ISSUER=" + iss.URL + "\nexport SVC_AUTHN_AUDIENCE=orders\nexport SVC_OAUTHCLIENT_ISSUER=" + iss.URL +
		"\nexport SVC_OAUTHCLIENT_CLIENT_ID=example-client\nexport SVC_OAUTHCLIENT_CLIENT_SECRET='it'\\''s'\n"
	if got := iss.Env(); got != want {
		t.Fatalf("Env:\n%s\nwant:\n%s", got, want)
	}
}
