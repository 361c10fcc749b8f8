package authnoidc_test

import (
	"context"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnoidc"
)

// An app that already trusts go-oidc's verifier hands it to the gate
// (with fxsvc.Authn(v) in an fx app).
func ExampleVerifier() {
	provider, err := oidc.NewProvider(context.Background(), "https://issuer.example")
	if err != nil {
		panic(err)
	}
	v := authnoidc.Verifier(provider.Verifier(&oidc.Config{ClientID: "orders"}))
	gate, err := authn.New(v)
	_, _ = gate, err
}
