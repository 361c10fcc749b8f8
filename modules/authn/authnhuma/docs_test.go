package authnhuma_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn/authnhuma"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// docsRoutes are every route Huma registers for its documentation, under
// the /api prefix of the test apps.
var docsRoutes = []string{
	"/api/openapi.json", "/api/openapi.yaml", "/api/openapi-3.0.json", "/api/openapi-3.0.yaml",
	"/api/docs", "/api/schemas/HelloOutputBody.json", "/api/schemas/NestedOutputBody.json",
}

type nestedPart struct {
	Name string `json:"name"`
}

type nestedOutput struct {
	Body struct {
		Part  nestedPart   `json:"part"`
		Parts []nestedPart `json:"parts"`
	}
}

// registerNested adds an operation whose schema refers to another schema,
// so that the schemas route has $ref links to follow.
func registerNested(api huma.API) {
	huma.Get(api, "/nested", func(context.Context, *struct{}) (*nestedOutput, error) {
		return &nestedOutput{}, nil
	}, authnhuma.Anonymous)
}

// get sends a GET to srv with the Host header host ("" keeps the
// listener's address).
func get(t *testing.T, srv *httptest.Server, path, host string, header http.Header) served {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, resp.Body); err != nil {
		t.Fatal(err)
	}
	s := served{status: resp.StatusCode, header: resp.Header, body: b.String()}
	_ = json.Unmarshal([]byte(s.body), &s.json)
	return s
}

// Regression: issue 14 item 18.
// With PublicDocs every documentation route Huma registers answers 200
// without a token (and a bad token still gets 401: they are anonymous, not
// excluded); without it they need a token, like every route.
func TestPublicDocsMakesEveryDocsRoutePublic(t *testing.T) {
	for rname, build := range routers {
		for _, public := range []bool{true, false} {
			name := rname + "/public"
			if !public {
				name = rname + "/default"
			}
			t.Run(name, func(t *testing.T) {
				o := appOptions{res: svcerrors.New(), hook: registerNested}
				if public {
					o.extra = []authnhuma.Option{authnhuma.PublicDocs()}
				}
				a := build(t, o)
				srv := a.serve(t, o.res)
				for _, route := range docsRoutes {
					got := get(t, srv, route, "", nil)
					want := http.StatusOK
					if !public {
						want = http.StatusUnauthorized
					}
					if got.status != want {
						t.Errorf("GET %s without a token: %d, want %d: %.200s", route, got.status, want, got.body)
					}
					if !public && got.header.Get("WWW-Authenticate") != "Bearer" {
						t.Errorf("GET %s: challenge %q", route, got.header.Get("WWW-Authenticate"))
					}
					if public {
						bad := get(t, srv, route, "", bearerHeader("forged"))
						if bad.status != http.StatusUnauthorized || !strings.Contains(bad.header.Get("WWW-Authenticate"), `error="invalid_token"`) {
							t.Errorf("GET %s with a bad token: %d %v", route, bad.status, bad.header)
						}
						good := get(t, srv, route, "", bearerHeader("alice-token"))
						if good.status != http.StatusOK {
							t.Errorf("GET %s with a token: %d", route, good.status)
						}
					}
				}
				// The app's own operations are untouched.
				if got := get(t, srv, "/api/me", "", nil); got.status != http.StatusUnauthorized {
					t.Errorf("/api/me without a token: %d", got.status)
				}
			})
		}
	}
}

// Regression: issue 14 item 18.
// A response's `$schema` link is an absolute URL that answers 200, on the
// host the request named, localhost included (where Huma wrote
// "https:///api/api/schemas/…"); the Link header resolves against the
// request; and the $ref links inside a served schema carry the prefix.
func TestSchemaLinksResolve(t *testing.T) {
	refs := regexp.MustCompile(`"\$ref":"([^"]+)"`)
	for rname, build := range routers {
		t.Run(rname, func(t *testing.T) {
			o := appOptions{res: svcerrors.New(), hook: registerNested, extra: []authnhuma.Option{authnhuma.PublicDocs()}}
			a := build(t, o)
			srv := a.serve(t, o.res)
			port := srv.Listener.Addr().String()
			port = port[strings.LastIndex(port, ":"):]
			for _, host := range []string{"", "localhost" + port, "localhost", "api.example"} {
				for _, op := range []string{"/api/hello", "/api/nested"} {
					got := get(t, srv, op, host, nil)
					if got.status != http.StatusOK {
						t.Fatalf("%s (Host %q): %d %s", op, host, got.status, got.body)
					}
					link, _ := got.json["$schema"].(string)
					u, err := url.Parse(link)
					// Plain http for a local host; Huma takes any other to be
					// behind a TLS proxy.
					wantScheme := "http"
					if host == "api.example" {
						wantScheme = "https"
					}
					if err != nil || u.Scheme != wantScheme || u.Host == "" || !strings.HasPrefix(u.Path, "/api/schemas/") || strings.Contains(u.Path, "/api/api/") {
						t.Fatalf("%s (Host %q): $schema %q", op, host, link)
					}
					wantHost := host
					if host == "" {
						wantHost = srv.Listener.Addr().String()
					}
					if u.Host != wantHost {
						t.Fatalf("%s (Host %q): $schema names host %q", op, host, u.Host)
					}
					// GET it where it points (the listener serves every host).
					schema := get(t, srv, u.Path, u.Host, nil)
					if schema.status != http.StatusOK || schema.json["type"] != "object" {
						t.Fatalf("GET %s: %d %.200s", link, schema.status, schema.body)
					}
					// The Link header, resolved against the request.
					lh := got.header.Get("Link")
					m := regexp.MustCompile(`^<([^>]+)>; rel="describedBy"$`).FindStringSubmatch(lh)
					if m == nil {
						t.Fatalf("%s: Link %q", op, lh)
					}
					base, _ := url.Parse(wantScheme + "://" + wantHost + op)
					target, err := base.Parse(m[1])
					if err != nil || target.String() != link {
						t.Fatalf("%s: Link %q resolves to %v, $schema is %q", op, lh, target, link)
					}
					// Every $ref in the schema resolves too.
					found := refs.FindAllStringSubmatch(schema.body, -1)
					if op == "/api/nested" && len(found) == 0 {
						t.Fatalf("no $ref in %s: %s", u.Path, schema.body)
					}
					for _, ref := range found {
						r, err := u.Parse(ref[1])
						if err != nil {
							t.Fatalf("$ref %q: %v", ref[1], err)
						}
						if got := get(t, srv, r.Path, r.Host, nil); got.status != http.StatusOK || got.json["type"] != "object" {
							t.Fatalf("$ref %q in %s: %d %.200s", ref[1], u.Path, got.status, got.body)
						}
					}
				}
			}
		})
	}
}

// Regression: issue 14 item 18.
// The document's example of a `$schema` link names the schemas where the
// API serves them, prefix included.
func TestSchemaLinkExampleCarriesThePrefix(t *testing.T) {
	for rname, build := range routers {
		t.Run(rname, func(t *testing.T) {
			o := appOptions{res: svcerrors.New(), hook: registerNested, extra: []authnhuma.Option{authnhuma.PublicDocs()}}
			srv := build(t, o).serve(t, o.res)
			got := get(t, srv, "/api/openapi.json", "", nil)
			var doc struct {
				Components struct {
					Schemas map[string]struct {
						Properties map[string]struct {
							Examples []string `json:"examples"`
						} `json:"properties"`
					} `json:"schemas"`
				} `json:"components"`
			}
			if err := json.Unmarshal([]byte(got.body), &doc); err != nil {
				t.Fatal(err)
			}
			n := 0
			for name, schema := range doc.Components.Schemas {
				prop, ok := schema.Properties["$schema"]
				if !ok {
					continue
				}
				n++
				want := "https://example.com/api/schemas/" + name + ".json"
				if len(prop.Examples) != 1 || prop.Examples[0] != want {
					t.Errorf("%s: $schema examples %q, want %q", name, prop.Examples, want)
				}
			}
			if n < 2 {
				t.Fatalf("only %d schemas with a $schema property", n)
			}
		})
	}
}

// Regression: issue 14 item 18.
// With an absolute server URL that has a path, a request to localhost gets
// a `$schema` link on that server, its path not doubled.
func TestSchemaLinkOnAnAbsoluteServer(t *testing.T) {
	cfg := huma.DefaultConfig("Test API", "1.0.0")
	cfg.Servers = []*huma.Server{{URL: "https://api.example/api"}}
	root := chi.NewRouter()
	var api huma.API
	root.Route("/api", func(r chi.Router) {
		api = authnhuma.NewChi(r, cfg, authnhuma.PublicDocs())
	})
	register(api)
	g := newGate(t, appOptions{})
	h, err := g.Handler(root)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptestServer(t, h)
	port := srv.Listener.Addr().String()
	got := get(t, srv, "/api/hello", "localhost"+port[strings.LastIndex(port, ":"):], nil)
	if link := got.json["$schema"]; link != "https://api.example/api/schemas/HelloOutputBody.json" {
		t.Fatalf("$schema %q (%d %s)", link, got.status, got.body)
	}
	if got := get(t, srv, "/api/schemas/HelloOutputBody.json", "", nil); got.status != http.StatusOK {
		t.Fatalf("schema: %d", got.status)
	}
}
