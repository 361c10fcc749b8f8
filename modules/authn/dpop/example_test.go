package dpop_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/dpop"
)

// tokens is a Verifier of its own; an app uses bearer.New(issuer,
// audience).
type tokens map[string]bearer.Principal

func (t tokens) Verify(_ context.Context, token string) (bearer.Principal, error) {
	if p, ok := t[token]; ok {
		return p, nil
	}
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

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
	gate, err := authn.New(tokens{"alice-token": {Subject: "alice", Authenticated: true}}, authn.DPoP(v, false))
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /orders", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("orders")) })
	h, err := gate.Handler(mux)
	if err != nil {
		panic(err)
	}

	for _, auth := range []string{"", "DPoP alice-token"} { // the second without its DPoP proof
		req := httptest.NewRequest("GET", "/orders", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Println(rec.Code, rec.Header().Values("WWW-Authenticate"))
	}
	// Output:
	// 401 [Bearer DPoP algs="ES256 EdDSA"]
	// 401 [DPoP algs="ES256 EdDSA", error="invalid_dpop_proof"]
}
