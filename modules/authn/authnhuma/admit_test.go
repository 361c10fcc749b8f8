package authnhuma_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"

	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// Admit is the operation's guard (the group's scopes with its own) where a
// Huma middleware stands: it admits a caller holding every scope without
// writing anything and without an allocation, and refuses the others as
// the guard's middleware does, 401 without a caller and 403 with the
// challenge naming the scopes, in the registered error format.
func TestAdmitEnforcesTheOperationsGuard(t *testing.T) {
	op := &huma.Operation{}
	authnhuma.Require("write")(op)
	authnhuma.Require("admin")(op) // a group's, after the operation's own
	caller := func(scopes ...string) *http.Request {
		r := httptest.NewRequest("POST", "/x", nil)
		p := bearer.Principal{Subject: "alice", Issuer: "https://idp.test", Scopes: bearer.NewScopes(scopes...), Authenticated: true}
		return authntest.WithPrincipal(r, p)
	}
	admit := func(r *http.Request, op *huma.Operation) (bool, *httptest.ResponseRecorder) {
		w := httptest.NewRecorder()
		var ok bool
		svcerrors.New().Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ok = authnhuma.Admit(humachi.NewContext(op, r, w))
		})).ServeHTTP(w, r)
		return ok, w
	}

	if ok, w := admit(caller("write", "admin", "read"), op); !ok || w.Code != 200 || w.Body.Len() != 0 || len(w.Header()) != 0 {
		t.Fatalf("a caller with the scopes: %v %d %v %s", ok, w.Code, w.Header(), w.Body)
	}
	if ok, w := admit(httptest.NewRequest("GET", "/x", nil), &huma.Operation{}); !ok || w.Code != 200 {
		t.Fatalf("an operation without Require: %v %d", ok, w.Code)
	}
	for _, tc := range []struct {
		name      string
		r         *http.Request
		status    int
		anchor    string
		challenge string
	}{
		{"a scope missing", caller("write"), 403, "insufficient-scope", `Bearer error="insufficient_scope", scope="admin write"`},
		{"no caller", httptest.NewRequest("POST", "/x", nil), 401, "authentication-required", "Bearer"},
	} {
		ok, w := admit(tc.r, op)
		if ok || w.Code != tc.status || !strings.Contains(w.Body.String(), "#"+tc.anchor) ||
			w.Header().Get("Content-Type") != "application/problem+json" || w.Header().Get("WWW-Authenticate") != tc.challenge {
			t.Fatalf("%s: %v %d %v %s", tc.name, ok, w.Code, w.Header(), w.Body)
		}
	}

	r := caller("write", "admin")
	ctx := humachi.NewContext(op, r, httptest.NewRecorder())
	if allocs := testing.AllocsPerRun(100, func() { authnhuma.Admit(ctx) }); allocs != 0 {
		t.Fatalf("Admit allocates %v times when it admits", allocs)
	}
}
