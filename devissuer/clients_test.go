package devissuer_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// svc's own client fetches a token by each secret method and by
// private_key_jwt (the issuer's audience and the token endpoint's, as
// oauthclient sends them), and the token names the client.
func TestClientAuthenticationMethods(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{})
	key, keyPEM := ecKey(t)
	if err := iss.Register(devissuer.Client{ID: "ledger", Key: &key.PublicKey}); err != nil {
		t.Fatal(err)
	}
	sec := oauthclient.ClientSecret(secret.String(iss.ClientSecret))
	for name, opts := range map[string][]oauthclient.Option{
		"client_secret_basic":           {oauthclient.ClientID(iss.ClientID), sec, oauthclient.Secret(oauthclient.Basic)},
		"client_secret_post":            {oauthclient.ClientID(iss.ClientID), sec, oauthclient.Secret(oauthclient.Post)},
		"private_key_jwt":               {oauthclient.ClientID("ledger"), oauthclient.PrivateKey(keyPEM)},
		"private_key_jwt, endpoint aud": {oauthclient.ClientID("ledger"), oauthclient.PrivateKey(keyPEM, oauthclient.AudienceTokenEndpoint)},
	} {
		tok := fetch(t, openClient(t, iss, opts...), "billing")
		c := claimsOf(t, tok.Value)
		want := iss.ClientID
		if name[0] == 'p' {
			want = "ledger"
		}
		if tok.TokenType != "Bearer" || c["client_id"] != want || c["sub"] != want || c["aud"] != "billing" {
			t.Errorf("%s: %s %v", name, tok.TokenType, c)
		}
	}
}

// A client assertion is refused, 401 invalid_client with a Basic
// challenge, when it is replayed, signed by another key, for another
// audience, expired, or names an unknown client.
func TestClientAssertionRefusals(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{})
	key, _ := ecKey(t)
	other, _ := ecKey(t)
	_ = iss.Register(devissuer.Client{ID: "ledger", Key: &key.PublicKey})
	assertion := func(k any, iss_, aud string, exp time.Duration, jti string) string {
		s, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k}, nil)
		tok, _ := jwt.Signed(s).Claims(jwt.Claims{Issuer: iss_, Subject: iss_, Audience: jwt.Audience{aud},
			Expiry: jwt.NewNumericDate(time.Now().Add(exp)), ID: jti}).Serialize()
		return tok
	}
	good := assertion(key, "ledger", iss.URL, time.Minute, "one")
	form := func(a string) url.Values {
		return url.Values{"grant_type": {"client_credentials"}, "client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}, "client_assertion": {a}}
	}
	if status, _, body := send(t, iss.URL+"/token", form(good), nil); status != 200 {
		t.Fatalf("a good assertion: %d %v", status, body)
	}
	for name, a := range map[string]string{
		"replayed":       good,
		"another key":    assertion(other, "ledger", iss.URL, time.Minute, "two"),
		"another aud":    assertion(key, "ledger", "https://elsewhere", time.Minute, "three"),
		"expired":        assertion(key, "ledger", iss.URL, -time.Minute, "four"),
		"unknown client": assertion(key, "nobody", iss.URL, time.Minute, "five"),
		"no jti":         assertion(key, "ledger", iss.URL, time.Minute, ""),
		"not a JWT":      "abc",
	} {
		status, h, body := send(t, iss.URL+"/token", form(a), nil)
		if status != http.StatusUnauthorized || body["error"] != "invalid_client" || body["error_description"] == "" || h.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: %d %v %v", name, status, h, body)
		}
	}
	// Two methods at once, and parameters in the query, are refused.
	if status, _, body := send(t, iss.URL+"/token", url.Values{"grant_type": {"client_credentials"}, "client_secret": {iss.ClientSecret}}, basic(iss)); status != 400 || body["error"] != "invalid_request" {
		t.Errorf("two methods: %d %v", status, body)
	}
	if status, _, body := send(t, iss.URL+"/token?scope=admin", url.Values{"grant_type": {"client_credentials"}}, basic(iss)); status != 400 || body["error"] != "invalid_request" {
		t.Errorf("a query: %d %v", status, body)
	}
	// A secret client's wrong secret, by post; no credentials at all; a
	// body naming another client than the Authorization header.
	for name, c := range map[string]struct {
		f url.Values
		h http.Header
	}{
		"wrong secret":                   {url.Values{"grant_type": {"client_credentials"}, "client_id": {iss.ClientID}, "client_secret": {"nope"}}, nil},
		"no credentials":                 {url.Values{"grant_type": {"client_credentials"}, "client_id": {iss.ClientID}}, nil},
		"another client_id than Basic's": {url.Values{"grant_type": {"client_credentials"}, "client_id": {"ledger"}}, basic(iss)},
	} {
		if status, _, body := send(t, iss.URL+"/token", c.f, c.h); status != 401 || body["error"] != "invalid_client" {
			t.Errorf("%s: %d %v", name, status, body)
		}
	}
}
