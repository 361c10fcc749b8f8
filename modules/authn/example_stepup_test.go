package authn_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
)

// A payment needs a phishing-resistant login (acr "phr") at most five
// minutes old; a token short of it is told what to get.
func ExampleRequireACR() {
	r := chi.NewRouter()
	r.With(authn.Require("payments"), authn.RequireACR("phr"), authn.MaxAge(5*time.Minute)).
		Post("/payments", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("paid")) })

	login := func(acr string, age time.Duration) authn.Principal {
		return authn.Principal{Subject: "alice", Scopes: authn.NewScopes("payments"), Authenticated: true,
			Claims: &authn.Claims{Raw: map[string]json.RawMessage{
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
