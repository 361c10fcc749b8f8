package bans_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/authn/flood"
)

// tokens is a Verifier of its own; an app uses bearer.New(issuer,
// audience). A token it does not know is refused as a forged signature.
type tokens map[string]bearer.Principal

func (t tokens) Verify(_ context.Context, token string) (bearer.Principal, error) {
	if p, ok := t[token]; ok {
		return p, nil
	}
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

// Five forged tokens within a minute ban the address for fifteen minutes.
// The gate counts them; it is given the bans as an option:
// fxsvc.Authn(verifier, authn.Bans(b)), with fxsvc.TrustedProxies when the
// app sits behind proxies.
func ExampleNew() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) // a real app leaves the clock alone
	b := bans.New(bans.Threshold(5), bans.Window(time.Minute), bans.Duration(15*time.Minute),
		bans.Clock(func() time.Time { return now }))
	gate, err := authn.New(tokens{"alice-token": {Subject: "alice", Authenticated: true}}, authn.Bans(b))
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /orders", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("orders")) })
	h, err := gate.Handler(mux)
	if err != nil {
		panic(err)
	}

	for _, token := range []string{"forged-1", "forged-2", "forged-3", "forged-4", "forged-5", "alice-token"} {
		req := httptest.NewRequest("GET", "/orders", nil) // from 192.0.2.1
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Println(token, rec.Code, rec.Header().Get("WWW-Authenticate")+rec.Header().Get("Retry-After"))
	}
	// Output:
	// forged-1 401 Bearer error="invalid_token"
	// forged-2 401 Bearer error="invalid_token"
	// forged-3 401 Bearer error="invalid_token"
	// forged-4 401 Bearer error="invalid_token"
	// forged-5 401 Bearer error="invalid_token"
	// alice-token 429 900
}

// Bans pair with a flood limit on the requests the gate must route to
// answer: a caller with a valid token scanning for URLs no route serves
// spends the flood budget, not signature checks.
func ExampleNew_withFlood() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) // a real app leaves the clocks alone
	clock := func() time.Time { return now }
	gate, err := authn.New(tokens{"alice-token": {Subject: "alice", Authenticated: true}},
		authn.Bans(bans.New(bans.Clock(clock))),
		authn.Flood(flood.New(flood.Rate(1), flood.Burst(2), flood.Clock(clock))),
	)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /orders", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("orders")) })
	h, err := gate.Handler(mux)
	if err != nil {
		panic(err)
	}

	for _, path := range []string{"/admin", "/.env", "/wp-login.php", "/orders"} {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Authorization", "Bearer alice-token")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Println(strings.TrimSpace(fmt.Sprint(path, " ", rec.Code, " ", rec.Header().Get("Retry-After"))))
	}
	// Output:
	// /admin 404
	// /.env 404
	// /wp-login.php 429 1
	// /orders 200
}
