package dpop_test

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/dpop"
)

// A verifier with server nonces, given to the gate: DPoP beside Bearer.
// A proof without the nonce is refused with the nonce to use.
func ExampleNew() {
	secret := make([]byte, 32) // the same on every replica
	_, _ = rand.Read(secret)
	nonces, err := dpop.NewNonceSource(secret, 5*time.Minute)
	if err != nil {
		panic(err)
	}
	v, err := dpop.New(dpop.Algorithms("ES256", "EdDSA"), dpop.RequireNonce(nonces))
	if err != nil {
		panic(err)
	}
	_ = authn.DPoP(v, false) // authn.New(verifier, authn.DPoP(v, false))

	r := httptest.NewRequest("GET", "https://api.example/orders", nil)
	_, err = v.Verify(r, "access-token")
	var e *dpop.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status(), e.Code(), e.Reason)
	}
	// Output:
	// 401 invalid_dpop_proof missing
}
