package authnhuma_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// The installer refuses on Huma what it refuses on chi, naming the
// operation's route.
func TestInstallRefusals(t *testing.T) {
	cases := []struct {
		name string
		reg  func(api huma.API)
		opts []authn.Option
		want string
	}{
		{"anonymous and require", func(api huma.API) {
			huma.Get(api, "/both", fromContext, authnhuma.Anonymous, authnhuma.Require("read"))
		}, nil, "GET /api/both is Anonymous and also requires"},
		{"anonymous operation in a scoped group", func(api huma.API) {
			grp := huma.NewGroup(api, "/g")
			grp.UseSimpleModifier(authnhuma.Require("admin"))
			huma.Get(grp, "/open", fromContext, authnhuma.Anonymous)
		}, nil, "GET /api/g/open is Anonymous"},
		{"excluded operation with scopes", func(api huma.API) {
			huma.Get(api, "/public/x", fromContext, authnhuma.Require("admin"))
		}, []authn.Option{authn.Exclude("/api/public/*")}, "GET /api/public/x is excluded from authentication but requires scopes"},
	}
	for rname, build := range routers {
		for _, tc := range cases {
			t.Run(rname+"/"+tc.name, func(t *testing.T) {
				a := build(t, appOptions{gateOpt: tc.opts, hook: tc.reg})
				_, err := a.gate.Handler(a.router)
				if !isInstallError(err) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want an install error containing %q", err, tc.want)
				}
			})
		}
	}
}

func TestOperationsAddedAfterInstallAreGatedAsTheyLand(t *testing.T) {
	each(t, appOptions{}, func(t *testing.T, a *app, fname string, res *svcerrors.Responses) {
		srv := a.serve(t, res)
		huma.Get(a.api, "/later", fromContext)
		huma.Get(a.api, "/later-open", fromContext, authnhuma.Anonymous)
		huma.Get(a.api, "/later-admin", fromContext, authnhuma.Require("admin"))
		if got := do(t, srv, "GET", "/api/later", nil, ""); got.status != 401 {
			t.Fatalf("/later: %d", got.status)
		}
		if got := do(t, srv, "GET", "/api/later-open", nil, ""); got.status != 200 || got.json["message"] != "hello stranger" {
			t.Fatalf("/later-open: %d %s", got.status, got.body)
		}
		got := do(t, srv, "GET", "/api/later-admin", bearerHeader("alice-token"), "")
		if got.status != 403 {
			t.Fatalf("/later-admin: %d", got.status)
		}
		checkError(t, got, fname, 403, "insufficient-scope")
	})
}

// An operation reading the required caller (authnhuma.Caller) while it is
// Anonymous, or on an excluded path, answers 401 when there is none.
func TestRequiredCallerWithoutOneIs401(t *testing.T) {
	hook := func(api huma.API) {
		huma.Get(api, "/anon-me", me, authnhuma.Anonymous)
		huma.Get(api, "/status-me", me)
	}
	each(t, appOptions{hook: hook, gateOpt: []authn.Option{authn.Exclude("/api/status-me"), authn.Resource("https://svc.example.com/api")}},
		func(t *testing.T, a *app, fname string, res *svcerrors.Responses) {
			srv := a.serve(t, res)
			for _, p := range []string{"/api/anon-me", "/api/status-me"} {
				got := do(t, srv, "GET", p, nil, "")
				if got.status != 401 {
					t.Fatalf("%s: %d %s", p, got.status, got.body)
				}
				checkError(t, got, fname, 401, "authentication-required")
				if p == "/api/anon-me" && got.header.Get("WWW-Authenticate") !=
					`Bearer resource_metadata="https://svc.example.com/.well-known/oauth-protected-resource/api"` {
					t.Errorf("challenge %q", got.header.Get("WWW-Authenticate"))
				}
			}
			if got := do(t, srv, "GET", "/api/anon-me", bearerHeader("alice-token"), ""); got.status != 200 || got.json["message"] != "hello alice" {
				t.Fatalf("with a token: %d %s", got.status, got.body)
			}
		})
}

// The docs and schema routes need a token unless excluded.
func TestExcludedSchemaRoute(t *testing.T) {
	each(t, appOptions{gateOpt: []authn.Option{authn.Exclude("/api/openapi.json", "/api/docs")}},
		func(t *testing.T, a *app, _ string, res *svcerrors.Responses) {
			srv := a.serve(t, res)
			if got := do(t, srv, "GET", "/api/openapi.json", nil, ""); got.status != 200 || got.json["openapi"] != "3.1.0" {
				t.Fatalf("/api/openapi.json: %d", got.status)
			}
			if got := do(t, srv, "GET", "/api/docs", nil, ""); got.status != 200 {
				t.Fatalf("/api/docs: %d", got.status)
			}
			if got := do(t, srv, "GET", "/api/openapi.yaml", nil, ""); got.status != 401 {
				t.Fatalf("/api/openapi.yaml: %d", got.status)
			}
		})
}

// A Huma API mounted inside a chi router is gated operation by operation:
// while it holds an anonymous operation, requests without a token reach it
// and each operation decides; the router's own routes keep theirs.
func TestHumaMountedInChiIsGatedOperationByOperation(t *testing.T) {
	g, err := authn.New(fakeVerifier{})
	if err != nil {
		t.Fatal(err)
	}
	root := chi.NewRouter()
	root.With(authn.Anonymous).Get("/", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("root")) })
	var calls int
	sub := chi.NewRouter()
	sub.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls++; next.ServeHTTP(w, r) })
	})
	api := authnhuma.NewChi(sub, huma.DefaultConfig("T", "1"), authnhuma.Gate(g), authnhuma.Prefix("/v1"))
	huma.Get(api, "/open", fromContext, authnhuma.Anonymous)
	huma.Get(api, "/closed", fromContext)
	root.Mount("/v1", sub)
	h, err := g.Handler(root)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptestServer(t, svcerrors.New().Middleware(h))
	if got := do(t, srv, "GET", "/v1/open", nil, ""); got.status != 200 || calls != 1 {
		t.Fatalf("anonymous operation: %d, mount middleware ran %d times", got.status, calls)
	}
	if got := do(t, srv, "GET", "/v1/closed", nil, ""); got.status != 401 || calls != 1 {
		t.Fatalf("protected operation: %d, mount middleware ran %d times", got.status, calls)
	}
	if got := do(t, srv, "GET", "/v1/closed", bearerHeader("alice-token"), ""); got.status != 200 || got.json["message"] != "hello alice" {
		t.Fatalf("protected operation with a token: %d %s", got.status, got.body)
	}
	if got := do(t, srv, "GET", "/", nil, ""); got.status != 200 {
		t.Fatalf("root: %d", got.status)
	}
}

// On an API built with humachi.New (no markers) the gate cannot see the
// operations' guards before routing: it fails closed (an Anonymous
// operation needs a token), and Require is still enforced inside Huma.
func TestBareHumaAdapterFailsClosed(t *testing.T) {
	g, err := authn.New(fakeVerifier{})
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	api := humachi.New(r, huma.DefaultConfig("T", "1"))
	huma.Get(api, "/open", fromContext, authnhuma.Anonymous)
	huma.Get(api, "/admin", fromContext, authnhuma.Require("admin"))
	huma.Post(api, "/items", func(_ context.Context, in *itemInput) (*helloOutput, error) { return reply("x"), nil },
		authnhuma.Require("items:write"))
	h, err := g.Handler(r)
	if err != nil {
		t.Fatal(err)
	}
	res := svcerrors.New()
	srv := httptestServer(t, res.Middleware(h))
	if got := do(t, srv, "GET", "/open", nil, ""); got.status != 401 {
		t.Fatalf("anonymous operation on a bare adapter: %d", got.status)
	}
	got := do(t, srv, "GET", "/admin", bearerHeader("alice-token"), "")
	if got.status != 403 || got.header.Get("WWW-Authenticate") != `Bearer error="insufficient_scope", scope="admin"` {
		t.Fatalf("Require on a bare adapter: %d %v %s", got.status, got.header, got.body)
	}
	checkError(t, got, "rfc9457", 403, "insufficient-scope")
	if got := do(t, srv, "POST", "/items", bearerHeader("alice-token"), `{"name":1}`); got.status != 403 {
		t.Fatalf("scope checked before the body: %d %s", got.status, got.body)
	}
	if got := do(t, srv, "GET", "/admin", bearerHeader("admin-token"), ""); got.status != 200 {
		t.Fatalf("scope held: %d", got.status)
	}
}

// The same operations registered through two groups are gated under each:
// Anonymous on one group makes them public under that group alone.
func TestGroupsRegisteringTheSameOperations(t *testing.T) {
	hook := func(api huma.API) {
		for _, g := range []struct {
			prefix string
			mod    func(*huma.Operation)
		}{{"/open-copy", authnhuma.Anonymous}, {"/closed-copy", authnhuma.Require("read")}} {
			grp := huma.NewGroup(api, g.prefix)
			grp.UseSimpleModifier(g.mod)
			huma.Get(grp, "/x", fromContext)
		}
	}
	each(t, appOptions{hook: hook}, func(t *testing.T, a *app, fname string, res *svcerrors.Responses) {
		srv := a.serve(t, res)
		if got := do(t, srv, "GET", "/api/open-copy/x", nil, ""); got.status != 200 {
			t.Fatalf("anonymous copy: %d", got.status)
		}
		got := do(t, srv, "GET", "/api/closed-copy/x", nil, "")
		if got.status != 401 {
			t.Fatalf("protected copy: %d", got.status)
		}
		checkError(t, got, fname, 401, "authentication-required")
	})
}
