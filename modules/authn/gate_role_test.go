package authn_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// keycloakRoles mints Keycloak-shaped tokens (realm and client roles) and
// a verifier with the Keycloak profile; the audience is the client.
func keycloakRoles(t *testing.T) (*authntest.Issuer, bearer.Verifier) {
	iss := authntest.NewIssuer(t, authntest.WithAudience("orders-api"))
	return iss, iss.Verifier(bearer.Profile(bearer.Keycloak()))
}

func keycloakToken(iss *authntest.Issuer, scope string, realm, client []string) string {
	return iss.Token(authntest.Scopes(scope), authntest.Claim("azp", "orders-web"),
		authntest.Claim("realm_access", map[string]any{"roles": realm}),
		authntest.Claim("resource_access", map[string]any{"orders-api": map[string]any{"roles": client},
			"account": map[string]any{"roles": []string{"manage-account"}}}))
}

// TestRequireRole: on chi, net/http's ServeMux and authn.ServeMux, a route
// marked RequireRole admits a caller holding the roles (realm or client
// roles of a Keycloak token) and refuses one lacking a role 403
// insufficient-role, naming the missing role and never the token's own,
// with no challenge; a token also short of the route's scope gets
// insufficient-scope whatever the markers' order.
func TestRequireRole(t *testing.T) {
	iss, v := keycloakRoles(t)
	okH := http.HandlerFunc(ok)
	routers := map[string]http.Handler{}
	r := chi.NewRouter()
	r.With(authn.RequireRole("order-admin")).Get("/orders", ok)
	r.With(authn.RequireRole("order-admin"), authn.Require("orders:write")).Post("/orders", ok)
	r.With(authn.Require("orders:write"), authn.RequireRole("order-admin", "order-viewer")).Put("/orders", ok)
	routers["chi"] = r
	for name, mux := range map[string]interface {
		http.Handler
		Handle(string, http.Handler)
	}{"ServeMux": http.NewServeMux(), "authn.ServeMux": authn.NewServeMux()} {
		mux.Handle("GET /orders", authn.RequireRole("order-admin")(okH))
		mux.Handle("POST /orders", authn.RequireRole("order-admin")(authn.Require("orders:write")(okH)))
		mux.Handle("PUT /orders", authn.Require("orders:write")(authn.RequireRole("order-admin", "order-viewer")(okH)))
		routers[name] = mux
	}
	admin := keycloakToken(iss, "orders:write", []string{"order-viewer"}, []string{"order-admin"})
	viewer := keycloakToken(iss, "orders:write", []string{"order-viewer", "secret-realm-role"}, []string{"another-client-role"})
	nobody := keycloakToken(iss, "profile", []string{"secret-realm-role"}, nil)
	for name, router := range routers {
		srv := gateServer(t, svcerrors.New(), router, v)
		for _, tc := range []struct {
			method, token string
			status        int
			kind          string
			missing       []any
		}{
			{"GET", admin, 200, "", nil},
			{"POST", admin, 200, "", nil},
			{"PUT", admin, 200, "", nil},
			{"GET", viewer, 403, "insufficient-role", []any{"order-admin"}},
			{"PUT", viewer, 403, "insufficient-role", []any{"order-admin"}},
			{"PUT", nobody, 403, "insufficient-scope", nil},
			{"POST", nobody, 403, "insufficient-scope", nil},
		} {
			got := do(t, srv, tc.method, "/orders", bearerHeader(tc.token), "")
			if got.status != tc.status {
				t.Errorf("%s %s: status %d, want %d (%s)", name, tc.method, got.status, tc.status, got.body)
				continue
			}
			if tc.status == 200 {
				continue
			}
			if got.json["type"] != docs+tc.kind {
				t.Errorf("%s %s: type %v, want %s", name, tc.method, got.json["type"], tc.kind)
			}
			if tc.kind != "insufficient-role" {
				continue
			}
			missing, _ := got.json["missing_roles"].([]any)
			if !slices.Equal(missing, tc.missing) || got.json["title"] != "Insufficient role" ||
				got.header.Get("WWW-Authenticate") != "" || got.header.Get("Content-Type") != "application/problem+json" ||
				!strings.Contains(got.body, `the role \"order-admin\"`) {
				t.Errorf("%s %s: %v %s", name, tc.method, got.header, got.body)
			}
			for _, own := range []string{"order-viewer", "secret-realm-role", "another-client-role", "manage-account"} {
				if strings.Contains(got.body, own) {
					t.Errorf("%s %s: the refusal echoes the token's role %q: %s", name, tc.method, own, got.body)
				}
			}
		}
	}
}

// TestRequireRoleWithoutAProfile: a verifier without a profile reads no
// role, so a RequireRole route refuses every caller.
func TestRequireRoleWithoutAProfile(t *testing.T) {
	iss := authntest.NewIssuer(t, authntest.WithAudience("orders-api"))
	r := chi.NewRouter()
	r.With(authn.RequireRole("order-admin")).Get("/orders", ok)
	srv := gateServer(t, svcerrors.New(), r, iss.Verifier())
	got := do(t, srv, "GET", "/orders", bearerHeader(keycloakToken(iss, "", nil, []string{"order-admin"})), "")
	if got.status != 403 || got.json["type"] != docs+"insufficient-role" {
		t.Fatalf("status %d: %s", got.status, got.body)
	}
}

// TestRequireRoleCheckAndInstall: `check` lists a route's roles after its
// scopes; an empty role, one with a control character, and roles on an
// excluded route are refused at install.
func TestRequireRoleCheckAndInstall(t *testing.T) {
	g, err := authn.New(newFake())
	if err != nil {
		t.Fatal(err)
	}
	mode, requires := g.Guard("GET", "/orders", http.HandlerFunc(ok), []func(http.Handler) http.Handler{
		authn.Require("orders:read"), authn.RequireRole("order-admin"), authn.RequireRole("auditor", "order-admin")})
	if mode != "authenticated" || !slices.Equal(requires, []string{"orders:read", "role=order-admin,auditor"}) {
		t.Errorf("Guard = %s %q", mode, requires)
	}
	for _, tc := range []struct {
		role, want string
		opts       []authn.Option
	}{
		{"", `requires the role ""`, nil},
		{"admin\n", `requires the role "admin\n"`, nil},
		{"admin", "is excluded from authentication but requires roles", []authn.Option{authn.Exclude("/x")}},
	} {
		m := authn.NewServeMux()
		m.Handle("GET /x", authn.RequireRole(tc.role)(http.HandlerFunc(ok)))
		g, err := authn.New(newFake(), tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Handler(m); !isInstallError(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("role %q: err = %v, want %q", tc.role, err, tc.want)
		}
	}
}
