package authn_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// HEAD on a route that serves GET is answered as GET without the body
// (RFC 9110 §9.3.2; issue 24 item 16), and judged by the GET route's
// guard: never as a request no route answers, never unguarded.
func TestHeadIsJudgedAndServedAsGet(t *testing.T) {
	routers := map[string]func() http.Handler{
		"chi":            func() http.Handler { return exampleRouter() },
		"authn.ServeMux": func() http.Handler { return exampleMux() },
		"http.ServeMux":  func() http.Handler { return exampleMux().ServeMux },
	}
	cases := []struct {
		name      string
		path      string
		token     string
		status    int
		challenge string
	}{
		{"authenticated route without a token", "/me", "", 401, `Bearer`},
		{"authenticated route with a token", "/me", "alice-token", 200, ""},
		{"anonymous route without a token", "/hello", "", 200, ""},
		{"scoped route without the scope", "/admin", "alice-token", 403, `Bearer error="insufficient_scope", scope="admin"`},
		{"scoped route with the scope", "/admin", "admin-token", 200, ""},
		{"router scope without a token", "/reports/", "", 401, `Bearer scope="read"`},
		{"nested scope without it", "/reports/secret", "alice-token", 403, `Bearer error="insufficient_scope", scope="read admin"`},
		{"no route without a token", "/nowhere", "", 401, `Bearer`},
		{"no route with a token", "/nowhere", "alice-token", 404, ""},
	}
	for name, router := range routers {
		srv := gateServer(t, svcerrors.New(), router(), newFake())
		for _, tc := range cases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				var h http.Header
				if tc.token != "" {
					h = bearerHeader(tc.token)
				}
				got := do(t, srv, http.MethodHead, tc.path, h, "")
				if got.status != tc.status {
					t.Fatalf("HEAD %s: status %d, want %d", tc.path, got.status, tc.status)
				}
				if got.body != "" {
					t.Fatalf("HEAD %s sent a body: %q", tc.path, got.body)
				}
				want := tc.challenge
				if name == "chi" && tc.path == "/reports/" {
					// chi finds HEAD of a sub-router's "/" route before
					// routing without its router's scopes: the 401 names
					// none (the route's marker still refuses).
					want = `Bearer`
				}
				if c := got.header.Get("WWW-Authenticate"); c != want {
					t.Fatalf("HEAD %s: WWW-Authenticate = %q, want %q", tc.path, c, want)
				}
				if tc.status == 200 {
					get := do(t, srv, http.MethodGet, tc.path, h, "")
					if get.status != 200 || get.body == "" {
						t.Fatalf("GET %s: %d %q", tc.path, get.status, get.body)
					}
					if ct := got.header.Get("Content-Type"); ct != get.header.Get("Content-Type") {
						t.Fatalf("HEAD %s: Content-Type %q, GET has %q", tc.path, ct, get.header.Get("Content-Type"))
					}
				}
			})
		}
	}
}

// On chi, a HEAD reaches the GET route of a mounted router, judged by its
// guard there.
func TestHeadThroughAChiMount(t *testing.T) {
	srv := gateServer(t, svcerrors.New(), exampleRouter(), newFake())
	for _, tc := range []struct {
		path   string
		token  string
		status int
	}{{"/sub/open", "", 200}, {"/sub/closed", "", 401}, {"/sub/closed", "alice-token", 200}, {"/sub/none", "alice-token", 404}} {
		var h http.Header
		if tc.token != "" {
			h = bearerHeader(tc.token)
		}
		if got := do(t, srv, http.MethodHead, tc.path, h, ""); got.status != tc.status || got.body != "" {
			t.Errorf("HEAD %s (%q): %d %q, want %d", tc.path, tc.token, got.status, got.body, tc.status)
		}
	}
}

// A HEAD route of its own keeps its own guard: the GET route's is only for
// a HEAD no HEAD route answers.
func TestHeadRouteOfItsOwnKeepsItsGuard(t *testing.T) {
	r := chi.NewRouter()
	r.With(authn.Require("admin")).Get("/status", ok)
	r.With(authn.Anonymous).Head("/status", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Head", "own")
	})
	r.With(authn.Anonymous).Get("/open", ok)
	r.Head("/open", func(w http.ResponseWriter, _ *http.Request) { w.Header().Set("X-Head", "own") })
	srv := gateServer(t, svcerrors.New(), r, newFake())

	if got := do(t, srv, http.MethodHead, "/status", nil, ""); got.status != 200 || got.header.Get("X-Head") != "own" {
		t.Fatalf("anonymous HEAD route: %d %v", got.status, got.header)
	}
	if got := do(t, srv, http.MethodGet, "/status", nil, ""); got.status != 401 {
		t.Fatalf("GET beside an anonymous HEAD route: %d", got.status)
	}
	// The GET route is anonymous, the HEAD route is not.
	if got := do(t, srv, http.MethodHead, "/open", nil, ""); got.status != 401 {
		t.Fatalf("protected HEAD route beside an anonymous GET: %d", got.status)
	}
	if got := do(t, srv, http.MethodHead, "/open", bearerHeader("alice-token"), ""); got.status != 200 || got.header.Get("X-Head") != "own" {
		t.Fatalf("protected HEAD route with a token: %d %v", got.status, got.header)
	}
}

// A HEAD on a path whose only routes are for other methods is a method no
// route serves: 401 without a token, 405 with one.
func TestHeadWithoutGetRouteIsUnrouted(t *testing.T) {
	r := chi.NewRouter()
	r.With(authn.Anonymous).Post("/submit", ok)
	srv := gateServer(t, svcerrors.New(), r, newFake())
	if got := do(t, srv, http.MethodHead, "/submit", nil, ""); got.status != 401 {
		t.Fatalf("HEAD beside an anonymous POST: %d", got.status)
	}
	if got := do(t, srv, http.MethodHead, "/submit", bearerHeader("alice-token"), ""); got.status != 405 {
		t.Fatalf("HEAD beside a POST, with a token: %d", got.status)
	}
}

// The handler of a GET route answering a HEAD sees the method HEAD, and its
// URL parameters, as on a ServeMux.
func TestHeadReachesTheGetHandlerWithItsParams(t *testing.T) {
	r := chi.NewRouter()
	var method, id string
	r.Get("/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		method, id = r.Method, chi.URLParam(r, "id")
		_, _ = io.WriteString(w, "order")
	})
	srv := gateServer(t, svcerrors.New(), r, newFake())
	if got := do(t, srv, http.MethodHead, "/orders/7", bearerHeader("alice-token"), ""); got.status != 200 {
		t.Fatalf("status %d", got.status)
	}
	if method != http.MethodHead || id != "7" {
		t.Fatalf("handler saw %s with id %q", method, id)
	}
}
