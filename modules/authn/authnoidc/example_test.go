package authnoidc_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnoidc"
	"github.com/svckit/svc/modules/authn/bearer"
)

// An app that already trusts go-oidc's verifier hands it to the gate
// (with fxsvc.Authn(v) in an fx app). go-oidc's refusals come back as
// *bearer.TokenError with a reason, as the gate's own verifiers give.
func ExampleVerifier() {
	// A stand-in for the provider's discovery document, on 127.0.0.1.
	var issuer string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"issuer":%q,"jwks_uri":%q}`, issuer, issuer+"/keys")
	}))
	defer srv.Close()
	issuer = srv.URL // "https://issuer.example" in a real app

	provider, err := oidc.NewProvider(context.Background(), issuer)
	if err != nil {
		panic(err)
	}
	v := authnoidc.Verifier(provider.Verifier(&oidc.Config{ClientID: "orders"}))
	gate, err := authn.New(v)
	if err != nil {
		panic(err)
	}
	_ = gate // gate.Handler(router)

	_, err = v.Verify(context.Background(), "not-a-jwt")
	var te *bearer.TokenError
	fmt.Println(errors.As(err, &te), te.Reason)
	// Output:
	// true malformed
}
