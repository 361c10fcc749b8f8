package authn_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
)

// tokens is a Verifier of its own; an app uses bearer.New(issuer,
// audience) instead.
type tokens map[string]bearer.Principal

func (t tokens) Verify(_ context.Context, token string) (bearer.Principal, error) {
	if p, ok := t[token]; ok {
		return p, nil
	}
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

// Every route is authenticated unless marked anonymous; Require asks for
// scopes. fxsvc.Authn builds the gate for an app; authn.New does it by hand.
func Example() {
	r := authn.NewChiRouter()
	r.With(authn.Anonymous).Get("/hello", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("hello"))
	})
	r.With(authn.Require("admin")).Get("/admin", func(w http.ResponseWriter, r *http.Request) {
		p, _ := authn.PrincipalFrom(r.Context())
		_, _ = w.Write([]byte("welcome, " + p.Subject))
	})

	gate, err := authn.New(tokens{
		"alice-token": {Subject: "alice", Scopes: bearer.NewScopes("read"), Authenticated: true},
		"root-token":  {Subject: "root", Scopes: bearer.NewScopes("read", "admin"), Authenticated: true},
	})
	if err != nil {
		panic(err)
	}
	h, err := gate.Handler(r)
	if err != nil {
		panic(err) // a route set up in a way the gate refuses, named
	}

	for _, c := range []struct{ path, token string }{
		{"/hello", ""}, {"/admin", ""}, {"/admin", "forged"}, {"/admin", "alice-token"}, {"/admin", "root-token"},
	} {
		req := httptest.NewRequest("GET", c.path, nil)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		said := rec.Header().Get("WWW-Authenticate") // a refusal's body is problem+json
		if rec.Code == http.StatusOK {
			said = rec.Body.String()
		}
		fmt.Printf("%s %q: %d %s\n", c.path, c.token, rec.Code, said)
	}
	// Output:
	// /hello "": 200 hello
	// /admin "": 401 Bearer scope="admin"
	// /admin "forged": 401 Bearer error="invalid_token", scope="admin"
	// /admin "alice-token": 403 Bearer error="insufficient_scope", scope="admin"
	// /admin "root-token": 200 welcome, root
}

// A route registered twice on chi would be served by the second alone;
// NewChiRouter refuses it, naming both registrations.
func ExampleNewChiRouter() {
	hello := func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("hello")) }
	r := authn.NewChiRouter()
	r.With(authn.Require("read")).Get("/report", hello)
	defer func() {
		msg := fmt.Sprint(recover())
		fmt.Println(msg[:strings.Index(msg, ": at ")])
	}()
	r.With(authn.Anonymous).Get("/report", hello)
	// Output: authn.NewChiRouter: "GET /report" is registered twice
}
