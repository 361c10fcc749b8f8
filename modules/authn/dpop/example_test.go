package dpop_test

import (
	"crypto/rand"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/dpop"
)

// A verifier with server nonces, given to the gate.
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
	// The gate takes the DPoP scheme beside Bearer and answers a proof
	// without the nonce with the nonce to use.
	_ = authn.DPoP(v, false) // authn.New(tokenVerifier, authn.DPoP(v, false))
}
