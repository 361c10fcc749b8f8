package fxsvc_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

type tokens struct{}

func (tokens) Verify(_ context.Context, tok string) (bearer.Principal, error) {
	if tok == "alice-token" {
		return bearer.Principal{Subject: "alice", Scopes: bearer.NewScopes("read"), Authenticated: true}, nil
	}
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

type out struct {
	Body struct {
		Message string `json:"message"`
	}
}

func greet(context.Context, *struct{}) (*out, error) {
	o := &out{}
	o.Body.Message = "hi"
	return o, nil
}

func text(s string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, s) }
}

// newMux is a ServeMux app with a Huma API under /api (humago).
func newMux(g *authn.Gate, res *svcerrors.Responses) *authn.ServeMux {
	mux := authn.NewServeMux()
	mux.Handle("GET /hello", authn.Anonymous(text("hello")))
	mux.HandleFunc("GET /me", text("me"))
	mux.Handle("POST /admin", authn.Require("admin")(text("admin")))
	mux.Handle("/static/", http.StripPrefix("/static", http.NotFoundHandler()))
	cfg := huma.DefaultConfig("T", "1")
	cfg.DocsPath, cfg.SchemasPath = "", ""
	api := authnhuma.NewGo(mux, cfg, authnhuma.Gate(g), authnhuma.Errors(res), authnhuma.Prefix("/api"))
	huma.Get(api, "/open", greet, authnhuma.Anonymous)
	huma.Get(api, "/items", greet, authnhuma.Require("read"))
	return mux
}

// newChiRouter is the same on chi, the Huma API through humachi.
func newChiRouter(g *authn.Gate, res *svcerrors.Responses) *chi.Mux {
	r := chi.NewRouter()
	r.With(authn.Anonymous).Get("/hello", text("hello"))
	r.Route("/api", func(r chi.Router) {
		cfg := huma.DefaultConfig("T", "1")
		cfg.DocsPath, cfg.SchemasPath = "", ""
		api := authnhuma.NewChi(r, cfg, authnhuma.Gate(g), authnhuma.Errors(res), authnhuma.Prefix("/api"))
		huma.Get(api, "/open", greet, authnhuma.Anonymous)
		huma.Get(api, "/items", greet, authnhuma.Require("read"))
	})
	return r
}

func TestCheckListsServeMuxAndHumaRoutes(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := fxsvc.Run([]string{"check"}, &stdout, &stderr,
		fxsvc.Errors(), fxsvc.Authn(tokens{}, authn.Exclude("/api/openapi.json")),
		fx.Provide(newMux), fxsvc.ServeMux(), fxsvc.Serve(fxsvc.Addr("256.0.0.1:1")))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	hasLines(t, stdout.String(),
		"POST /admin authenticated admin",
		"GET /api/items authenticated read",
		"GET /api/open anonymous",
		"GET /api/openapi.json excluded",
		"GET /api/openapi.yaml authenticated",
		"GET /hello anonymous",
		"GET /me authenticated",
		"* /static/ authenticated")
}

// hasLines checks that check printed each line (fields compared, not
// their alignment).
func hasLines(t *testing.T, out string, want ...string) {
	t.Helper()
	got := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		got[strings.Join(strings.Fields(line), " ")] = true
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("check output lacks %q:\n%s", w, out)
		}
	}
}

func TestCheckListsHumaOperationsOnChi(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := fxsvc.Run([]string{"check"}, &stdout, &stderr,
		fxsvc.Errors(), fxsvc.Authn(tokens{}), fx.Provide(newChiRouter), fxsvc.Serve(fxsvc.Addr("256.0.0.1:1")))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	hasLines(t, stdout.String(), "GET /api/items authenticated read", "GET /api/open anonymous",
		"GET /api/openapi.json authenticated", "GET /hello anonymous")
}

func TestServeMuxIsServedBehindTheGate(t *testing.T) {
	app, srv := startApp(t, fxsvc.TMFErrors("SHOP", svcerrors.KindDocs), fxsvc.Authn(tokens{}),
		fx.Provide(newMux), fxsvc.ServeMux(), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	base := "http://" + srv.Addr()
	cases := []struct {
		method, path, token string
		status              int
		body                string
	}{
		{"GET", "/hello", "", 200, "hello"},
		{"GET", "/me", "", 401, `"code":"SHOP-AUTHENTICATION-REQUIRED"`},
		{"GET", "/me", "alice-token", 200, "me"},
		{"POST", "/admin", "alice-token", 403, `"code":"SHOP-INSUFFICIENT-SCOPE"`},
		{"GET", "/api/open", "", 200, `"message":"hi"`},
		{"GET", "/api/items", "", 401, `"code":"SHOP-AUTHENTICATION-REQUIRED"`},
		{"GET", "/api/items", "alice-token", 200, `"message":"hi"`},
		{"GET", "/nowhere", "", 401, `"code":"SHOP-AUTHENTICATION-REQUIRED"`},
		{"GET", "/nowhere", "alice-token", 404, `"code":"SHOP-NOT-FOUND"`},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, base+c.path, nil)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(b), c.body) {
			t.Errorf("%s %s: %d %s", c.method, c.path, resp.StatusCode, b)
		}
	}
}

// An install refusal on a ServeMux stops the app from building, naming the
// route.
func TestServeMuxInstallRefusalFailsTheApp(t *testing.T) {
	bad := func() *authn.ServeMux {
		mux := authn.NewServeMux()
		mux.Handle("GET /x", authn.Anonymous(authn.Require("a")(text("x"))))
		return mux
	}
	var stdout, stderr bytes.Buffer
	code := fxsvc.Run(nil, &stdout, &stderr, fxsvc.Authn(tokens{}), fx.Provide(bad), fxsvc.ServeMux(), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	if code != 1 || !strings.Contains(stderr.String(), "route GET /x is Anonymous and also requires a caller") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}
