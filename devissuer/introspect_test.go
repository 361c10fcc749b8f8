package devissuer_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// An opaque token passes svc's verifier by introspection (the endpoint
// and the signed answer from discovery alone, RFC 9701), with its
// claims; revoked (RFC 7009), introspection reports it inactive and a
// fresh verifier refuses it. A JWT is revoked alike.
func TestOpaqueTokensThroughIntrospectionAndRevocation(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{Audience: "ledger"})
	c := openClient(t, iss, oauthclient.ClientID(iss.ClientID), oauthclient.ClientSecret(secret.String(iss.ClientSecret)))
	verifier := func() *bearer.JWTVerifier {
		v := bearer.New(iss.URL, "ledger", bearer.Introspect("", c))
		if err := v.Open(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { v.Close(context.Background()) })
		if err := authntest.WaitReady(v, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		return v
	}
	opaque, err := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}, ACR: "mfa", Opaque: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := verifier().Verify(context.Background(), opaque)
	if err != nil || p.Subject != "alice" || !p.Scopes.Has("read") {
		t.Fatalf("opaque token: %+v %v", p, err)
	}
	jwt, _ := iss.Mint(devissuer.Token{Subject: "bob"})
	for _, tok := range []string{opaque, jwt} {
		if status, _, body := send(t, iss.URL+"/introspect", url.Values{"token": {tok}}, basic(iss)); status != 200 || body["active"] != true {
			t.Fatalf("before revocation: %d %v", status, body)
		}
		if status, _, _ := send(t, iss.URL+"/revoke", url.Values{"token": {tok}, "token_type_hint": {"access_token"}}, basic(iss)); status != 200 {
			t.Fatalf("revoke: %d", status)
		}
		if status, _, body := send(t, iss.URL+"/introspect", url.Values{"token": {tok}}, basic(iss)); status != 200 || body["active"] != false || len(body) != 1 {
			t.Fatalf("after revocation: %d %v", status, body)
		}
	}
	if _, err := verifier().Verify(context.Background(), opaque); err == nil || errors.Is(err, bearer.ErrIntrospectionUnavailable) {
		t.Fatalf("a revoked token: %v", err)
	}
	// A jti is not a token, and an unknown client learns nothing.
	if status, _, body := send(t, iss.URL+"/introspect", url.Values{"token": {"x"}, "hint": {"y"}}, basic(iss)); status != 400 || body["error"] != "invalid_request" {
		t.Fatalf("unknown parameter: %d %v", status, body)
	}
	if status, _, body := send(t, iss.URL+"/introspect", url.Values{"token": {opaque}}, nil); status != 401 || body["error"] != "invalid_client" {
		t.Fatalf("no client: %d %v", status, body)
	}
}

// A signed answer is a token-introspection+jwt for the asking client.
func TestSignedIntrospection(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{})
	tok, _ := iss.Mint(devissuer.Token{Subject: "alice", Opaque: true})
	req, _ := http.NewRequest("POST", iss.URL+"/introspect", strings.NewReader(url.Values{"token": {tok}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/token-introspection+jwt")
	req.SetBasicAuth(iss.ClientID, iss.ClientSecret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	c := claimsOf(t, string(b))
	ti, _ := c["token_introspection"].(map[string]any)
	if resp.Header.Get("Content-Type") != "application/token-introspection+jwt" || c["aud"] != iss.ClientID || c["iss"] != iss.URL || ti["active"] != true || ti["sub"] != "alice" {
		t.Fatalf("%v %v", resp.Header, c)
	}
}
