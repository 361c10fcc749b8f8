package authnhuma_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// roleVerifier hands out callers with roles, as a verifier with a
// provider profile fills them.
type roleVerifier struct{}

func (roleVerifier) Verify(_ context.Context, token string) (bearer.Principal, error) {
	p := func(roles []string, scopes ...string) bearer.Principal {
		return bearer.Principal{Subject: "alice", Issuer: "https://idp.test", Scopes: bearer.NewScopes(scopes...),
			Roles: bearer.NewRoles(roles...), Authenticated: true}
	}
	switch token {
	case "admin":
		return p([]string{"order-admin", "order-viewer"}, "orders:write"), nil
	case "viewer":
		return p([]string{"order-viewer", "secret-role"}, "orders:write"), nil
	case "viewer-no-scope":
		return p([]string{"order-viewer"}), nil
	}
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

// roleOperations require roles through RequireRole, through Use with
// authn.RequireRole, and on a group through Group.
func roleOperations(api huma.API) {
	huma.Delete(api, "/orders/{id}", func(_ context.Context, in *struct {
		ID string `path:"id"`
	}) (*helloOutput, error) {
		return reply("deleted " + in.ID), nil
	}, authnhuma.RequireRole("order-admin"), authnhuma.Require("orders:write"))
	huma.Post(api, "/refund", func(_ context.Context, in *itemInput) (*helloOutput, error) {
		return reply("refunded " + in.Body.Name), nil
	}, authnhuma.Use(authn.RequireRole("order-admin")))
	reports := huma.NewGroup(api, "/reports")
	authnhuma.Group(reports, authn.RequireRole("order-viewer"))
	huma.Get(reports, "/daily", fromContext)
}

// TestRequireRoleOnHuma: behind NewChi and NewGo, and on a bare humachi
// adapter, a caller lacking the operation's role gets 403
// insufficient-role naming it (never the token's roles, no challenge),
// before Huma reads the body; one short of the scope too gets
// insufficient-scope.
func TestRequireRoleOnHuma(t *testing.T) {
	rows := []struct {
		name, method, path, token, body string
		status                          int
		anchor                          string
	}{
		{"role held", "DELETE", "/orders/7", "admin", "", 200, ""},
		{"role missing", "DELETE", "/orders/7", "viewer", "", 403, "insufficient-role"},
		{"role and scope missing", "DELETE", "/orders/7", "viewer-no-scope", "", 403, "insufficient-scope"},
		{"Use: role held", "POST", "/refund", "admin", `{"name":"pen"}`, 200, ""},
		{"Use: role missing, invalid body", "POST", "/refund", "viewer", `{"name":1}`, 403, "insufficient-role"},
		{"group: role held", "GET", "/reports/daily", "viewer-no-scope", "", 200, ""},
	}
	each(t, appOptions{verify: roleVerifier{}, hook: roleOperations}, func(t *testing.T, a *app, fname string, res *svcerrors.Responses) {
		srv := a.serve(t, res)
		for _, c := range rows {
			path := "/api" + c.path
			got := do(t, srv, c.method, path, bearerHeader(c.token), c.body)
			if got.status != c.status {
				t.Errorf("%s: %d, want %d (%s)", c.name, got.status, c.status, got.body)
				continue
			}
			if c.anchor != "" && !strings.Contains(got.body, strings.ToUpper(c.anchor)) && !strings.Contains(got.body, "#"+c.anchor) {
				t.Errorf("%s: body %s lacks %s", c.name, got.body, c.anchor)
			}
			if c.anchor == "insufficient-role" && (got.header.Get("WWW-Authenticate") != "" ||
				!strings.Contains(got.body, "order-admin") || strings.Contains(got.body, "secret-role") || strings.Contains(got.body, "order-viewer")) {
				t.Errorf("%s: %v %s", c.name, got.header, got.body)
			}
		}
	})

	g, err := authn.New(roleVerifier{})
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	api := humachi.New(r, huma.DefaultConfig("Bare", "1.0.0"))
	roleOperations(api)
	h, err := g.Handler(r)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptestServer(t, svcerrors.New().Middleware(h))
	for _, c := range rows[:5] {
		if got := do(t, srv, c.method, c.path, bearerHeader(c.token), c.body); got.status != c.status {
			t.Errorf("bare adapter, %s: %d, want %d (%s)", c.name, got.status, c.status, got.body)
		}
	}
}

// TestRequireRoleIsDocumentedAndChecked: the operation's 403 names its
// roles (with no WWW-Authenticate where no scope is required), its
// x-svc-roles extension lists them, the 401 mentions no step-up, and
// `check` lists them as role=….
func TestRequireRoleIsDocumentedAndChecked(t *testing.T) {
	a := newChiApp(t, appOptions{verify: roleVerifier{}, hook: roleOperations, res: svcerrors.New()})
	del := a.api.OpenAPI().Paths["/orders/{id}"].Delete
	forbidden := del.Responses["403"]
	if forbidden == nil || !strings.Contains(forbidden.Description, "orders:write") ||
		!strings.Contains(forbidden.Description, "insufficient-role, naming the missing roles): order-admin") {
		t.Fatalf("403: %+v", forbidden)
	}
	if roles, _ := del.Extensions["x-svc-roles"].([]string); !slices.Equal(roles, []string{"order-admin"}) {
		t.Fatalf("x-svc-roles: %v", del.Extensions)
	}
	refund := a.api.OpenAPI().Paths["/refund"].Post
	if resp := refund.Responses["403"]; resp == nil || resp.Headers["WWW-Authenticate"] != nil {
		t.Fatalf("role-only 403: %+v", resp)
	}
	if h := refund.Responses["401"].Headers["WWW-Authenticate"]; h == nil || strings.Contains(h.Description, "insufficient_user_authentication") {
		t.Fatalf("a role is no step-up: %+v", h)
	}
	found := map[string]string{}
	_ = chi.Walk(a.router.(chi.Routes), func(method, pattern string, h http.Handler, mws ...func(http.Handler) http.Handler) error {
		mode, requires := a.gate.Guard(method, pattern, h, mws)
		found[method+" "+pattern] = mode + " " + strings.Join(requires, " ")
		return nil
	})
	for route, want := range map[string]string{
		"DELETE /api/orders/{id}": "authenticated orders:write role=order-admin",
		"POST /api/refund":        "authenticated role=order-admin",
		"GET /api/reports/daily":  "authenticated role=order-viewer",
	} {
		if found[route] != want {
			t.Errorf("check %s: %q, want %q", route, found[route], want)
		}
	}
}
