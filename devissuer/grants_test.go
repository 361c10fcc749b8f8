package devissuer_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// RFC 8693 with an actor: the new token's act names the actor_token's
// subject, and the act the subject token carried nests inside (§4.1);
// the caller's acr passes through, and an opaque subject token works.
func TestTokenExchangeWithAnActor(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{})
	caller, _ := iss.Mint(devissuer.Token{Subject: "alice", ACR: "mfa", Opaque: true, Extra: map[string]any{"act": map[string]any{"sub": "gateway"}}})
	actor, _ := iss.Mint(devissuer.Token{Subject: "ledger-svc"})
	form := url.Values{
		"grant_type":         {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"subject_token":      {caller},
		"subject_token_type": {"urn:ietf:params:oauth:token-type:access_token"},
		"actor_token":        {actor},
		"actor_token_type":   {"urn:ietf:params:oauth:token-type:access_token"},
		"audience":           {"payments"},
	}
	status, _, body := send(t, iss.URL+"/token", form, basic(iss))
	if status != 200 || body["issued_token_type"] != "urn:ietf:params:oauth:token-type:access_token" {
		t.Fatalf("%d %v", status, body)
	}
	c := claimsOf(t, body["access_token"].(string))
	act, _ := c["act"].(map[string]any)
	prior, _ := act["act"].(map[string]any)
	if c["sub"] != "alice" || c["aud"] != "payments" || c["acr"] != "mfa" || act["sub"] != "ledger-svc" || prior["sub"] != "gateway" {
		t.Fatalf("claims %v", c)
	}
	for name, change := range map[string]url.Values{
		"a dead actor":            {"actor_token": {"nope"}},
		"an actor without a type": {"actor_token_type": {""}},
	} {
		f := url.Values{}
		for k, v := range form {
			f[k] = v
		}
		for k, v := range change {
			if v[0] == "" {
				delete(f, k)
			} else {
				f[k] = v
			}
		}
		if status, _, body := send(t, iss.URL+"/token", f, basic(iss)); status != 400 || body["error_description"] == "" {
			t.Errorf("%s: %d %v", name, status, body)
		}
	}
}

// A refresh token renews its token once, for its client, never with more
// scope; revoked, it renews nothing.
func TestRefreshTokens(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{})
	_, body := getJSON(t, iss.URL+"/mint?sub=alice&scope=read+write&acr=mfa&refresh=true")
	first, _ := body["refresh_token"].(string)
	refresh := func(rt, scope string) (int, map[string]any) {
		f := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}}
		if scope != "" {
			f.Set("scope", scope)
		}
		status, _, body := send(t, iss.URL+"/token", f, basic(iss))
		return status, body
	}
	status, body := refresh(first, "read")
	if c := claimsOf(t, body["access_token"].(string)); status != 200 || c["sub"] != "alice" || c["acr"] != "mfa" || c["scope"] != "read" || body["refresh_token"] == "" {
		t.Fatalf("%d %v %v", status, body, c)
	}
	next := body["refresh_token"].(string)
	if status, body := refresh(first, ""); status != 400 || body["error"] != "invalid_grant" {
		t.Fatalf("used twice: %d %v", status, body)
	}
	if status, body := refresh(next, "read admin"); status != 400 || body["error"] != "invalid_scope" {
		t.Fatalf("widened: %d %v", status, body)
	}
	_, body = getJSON(t, iss.URL+"/mint?sub=alice&refresh=true")
	rt := body["refresh_token"].(string)
	send(t, iss.URL+"/revoke", url.Values{"token": {rt}}, basic(iss))
	if status, body := refresh(rt, ""); status != 400 || body["error"] != "invalid_grant" {
		t.Fatalf("revoked: %d %v", status, body)
	}
}

// svc's on-behalf-of pattern (the JWT bearer grant, as Entra runs it)
// gets a token for the caller, naming the client in azp.
func TestOnBehalfOf(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{})
	c := openClient(t, iss, oauthclient.ClientID(iss.ClientID), oauthclient.ClientSecret(secret.String(iss.ClientSecret)))
	obo, err := oauthclient.TokenExchangeOnBehalfOf("billing", oauthclient.WithClient(c), oauthclient.Scopes("invoices"))
	if err != nil {
		t.Fatal(err)
	}
	caller, _ := iss.Mint(devissuer.Token{Subject: "alice", ACR: "mfa"})
	tok, err := obo.TokenFor(context.Background(), caller)
	if err != nil {
		t.Fatal(err)
	}
	if cl := claimsOf(t, tok.Value); cl["sub"] != "alice" || cl["azp"] != iss.ClientID || cl["acr"] != "mfa" || cl["scope"] != "invoices" || cl["act"] != nil {
		t.Fatalf("claims %v", cl)
	}
	for name, f := range map[string]url.Values{
		"no requested_token_use": {"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {caller}},
		"a dead assertion":       {"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {"x"}, "requested_token_use": {"on_behalf_of"}},
	} {
		if status, _, body := send(t, iss.URL+"/token", f, basic(iss)); status != 400 || body["error_description"] == "" {
			t.Errorf("%s: %d %v", name, status, body)
		}
	}
}
