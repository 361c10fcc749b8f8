package authn_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
)

// A payment needs a phishing-resistant login (acr "phr") at most five
// minutes old; a token short of it is told what to get.
func ExampleRequireACR() {
	r := chi.NewRouter()
	r.With(authn.Require("payments"), authn.RequireACR("phr"), authn.MaxAge(5*time.Minute)).
		Post("/payments", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("paid")) })

	login := func(acr string, age time.Duration) bearer.Principal {
		return bearer.Principal{Subject: "alice", Scopes: bearer.NewScopes("payments"), Authenticated: true,
			Claims: &bearer.Claims{Raw: map[string]json.RawMessage{
				"acr":       json.RawMessage(strconv.Quote(acr)),
				"auth_time": json.RawMessage(strconv.FormatInt(time.Now().Add(-age).Unix(), 10)),
			}}}
	}
	gate, err := authn.New(tokens{
		"password-login": login("pwd", time.Minute),
		"fresh-phr":      login("phr", time.Minute),
	})
	if err != nil {
		panic(err)
	}
	h, err := gate.Handler(r)
	if err != nil {
		panic(err)
	}
	for _, token := range []string{"password-login", "fresh-phr"} {
		req := httptest.NewRequest("POST", "/payments", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Println(rec.Code, rec.Header().Get("WWW-Authenticate"))
	}
	// Output:
	// 401 Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="phr", max_age="300"
	// 200
}

// A check hook asks for an Entra authentication context the token lacks;
// the challenge names where to get it, as Microsoft's clients read it.
func ExampleClaimsChallengeAuthority() {
	r := chi.NewRouter()
	r.Get("/records", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("records")) })
	needsC1 := authn.Check(func(_ context.Context, p bearer.Principal, _ *http.Request) (bearer.Principal, error) {
		if _, ok := p.Claims.Raw["acrs"]; !ok {
			return bearer.Principal{}, authn.ClaimsChallenge([]byte(`{"access_token":{"acrs":{"essential":true,"value":"c1"}}}`))
		}
		return p, nil
	})
	gate, err := authn.New(tokens{"plain": {Subject: "alice", Authenticated: true, Claims: &bearer.Claims{}}}, needsC1,
		authn.ClaimsChallengeAuthority("", "https://login.microsoftonline.com/common/oauth2/authorize"))
	if err != nil {
		panic(err)
	}
	h, err := gate.Handler(r)
	if err != nil {
		panic(err)
	}
	req := httptest.NewRequest("GET", "/records", nil)
	req.Header.Set("Authorization", "Bearer plain")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Header().Get("WWW-Authenticate"))
	// Output:
	// 401 Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", error="insufficient_claims", claims="eyJhY2Nlc3NfdG9rZW4iOnsiYWNycyI6eyJlc3NlbnRpYWwiOnRydWUsInZhbHVlIjoiYzEifX19"
}
