package devissuer_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/svckit/svc/internal/devissuer"
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
