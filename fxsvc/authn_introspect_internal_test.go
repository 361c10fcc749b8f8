package fxsvc

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"testing"

	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// Issue 20: the start line (and `check`) names the introspection endpoint
// of a verifier that takes opaque tokens, never a credential of its client.
func TestTheStartLineNamesTheIntrospectionEndpoint(t *testing.T) {
	client, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint("https://idp.example/token"),
		oauthclient.ClientID("orders"), oauthclient.ClientSecret(secret.String("hunter2-introspect")))
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	v := bearer.KeySet("https://idp.example", "api://orders", []crypto.PublicKey{&key.PublicKey},
		bearer.Introspect("https://idp.example/introspect", client))
	for _, verifier := range []bearer.Verifier{v, bearer.Issuers(v)} {
		enc := zapcore.NewMapObjectEncoder()
		encodeVerifier(gateOf(t, verifier), enc)
		if got := enc.Fields["introspection_endpoint"]; got != "https://idp.example/introspect" {
			t.Fatalf("%T: introspection_endpoint %v in %v", verifier, got, enc.Fields)
		}
	}
	plain := zapcore.NewMapObjectEncoder()
	encodeVerifier(gateOf(t, bearer.KeySet("https://idp.example", "api://orders", []crypto.PublicKey{&key.PublicKey})), plain)
	if _, has := plain.Fields["introspection_endpoint"]; has {
		t.Fatalf("a verifier without Introspect names an endpoint: %v", plain.Fields)
	}
}

func gateOf(t *testing.T, v bearer.Verifier) *authn.Gate {
	t.Helper()
	g, err := authn.New(v)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Issue 20: the start line shows an issuer template as written, with the
// tenants it stands for, as `check` does.
func TestTheStartLineShowsIssuerTemplates(t *testing.T) {
	const tpl = "https://login.microsoftonline.com/{tenantid}/v2.0"
	for _, tt := range []struct {
		v    bearer.Verifier
		want string
	}{
		{bearer.New(tpl, "api", bearer.AnyTenant()), "[" + tpl + " (any tenant)]"},
		{bearer.New(tpl, "api", bearer.Tenants("t1", "t2")), "[" + tpl + " (tenants t1, t2)]"},
	} {
		enc := zapcore.NewMapObjectEncoder()
		encodeVerifier(gateOf(t, tt.v), enc)
		if got := fmt.Sprint(enc.Fields["issuers"]); got != tt.want {
			t.Fatalf("issuers %s, want %s", got, tt.want)
		}
	}
}
