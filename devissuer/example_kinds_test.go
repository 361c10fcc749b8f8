package devissuer_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// svc's own client asks for a DPoP-bound token and gets one: token_type
// DPoP, bound to the client's key (cnf.jkt); its Transport then sends a
// fresh proof with every request.
func Example_dPoP() {
	iss, err := devissuer.Start(devissuer.Options{})
	if err != nil {
		panic(err)
	}
	defer iss.Close()
	ctx := context.Background()
	c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.Issuer(iss.URL),
		oauthclient.ClientID(iss.ClientID), oauthclient.ClientSecret(secret.String(iss.ClientSecret)),
		oauthclient.DPoP(nil)) // an ES256 key made here
	if err != nil {
		panic(err)
	}
	if err := c.Open(ctx); err != nil {
		panic(err)
	}
	defer c.Close(ctx)
	p, err := oauthclient.ClientCredentials("ledger", oauthclient.WithClient(c), oauthclient.Audience("ledger"))
	if err != nil {
		panic(err)
	}
	tok, err := p.Token(ctx)
	fmt.Println(tok.TokenType, err)
	// Output: DPoP <nil>
}

// Each token kind from Go: a step-up JWT, an opaque token for
// introspection, one bound to a DPoP key and one to a certificate.
func ExampleIssuer_Mint() {
	iss, err := devissuer.Start(devissuer.Options{Audience: "ledger"})
	if err != nil {
		panic(err)
	}
	defer iss.Close()
	for _, t := range []devissuer.Token{
		{Subject: "alice", Scopes: []string{"read"}, ACR: "mfa", AMR: []string{"pwd", "otp"}},
		{Subject: "bob", Scopes: []string{"read"}, Opaque: true},
		{Subject: "alice", JKT: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"},
		{Subject: "ledger-svc", X5T: "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"},
	} {
		tok, err := iss.Mint(t)
		fmt.Println("JWT:", strings.Count(tok, ".") == 2, err)
	}
	// Output:
	// JWT: true <nil>
	// JWT: false <nil>
	// JWT: true <nil>
	// JWT: true <nil>
}
