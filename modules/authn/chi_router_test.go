package authn_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/internal/chihead"
	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// registerPanic runs register and returns what it panicked with ("" when
// it did not).
func registerPanic(register func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	register()
	return ""
}

// A chi route registered twice is refused when registered, naming both
// registrations and their guards, on every way chi registers a route
// (issue 24 item 8).
func TestChiRouteRegisteredTwiceIsRefused(t *testing.T) {
	for name, tc := range map[string]struct {
		first, second func(r chi.Router)
		route         string // the route the refusal names
		words         []string
	}{
		"Get then Get, the second Anonymous": {
			func(r chi.Router) { r.With(authn.Require("read")).Get("/report", ok) },
			func(r chi.Router) { r.With(authn.Anonymous).Get("/report", ok) },
			`"GET /report"`, []string{"(authn.Require(read))", "(authn.Anonymous)"},
		},
		"a guard from Use and one from Group": {
			func(r chi.Router) { r.Get("/report", ok) },
			func(r chi.Router) { r.Group(func(g chi.Router) { g.Use(authn.Anonymous); g.Get("/report", ok) }) },
			`"GET /report"`, []string{"(authenticated)", "(authn.Anonymous)"},
		},
		"Method then MethodFunc, methods in another case": {
			func(r chi.Router) { r.Method("post", "/orders", okH()) },
			func(r chi.Router) { r.MethodFunc(http.MethodPost, "/orders", ok) },
			`"POST /orders"`, nil,
		},
		"Handle with a method then Put": {
			func(r chi.Router) { r.Handle("PUT /orders/{id}", okH()) },
			func(r chi.Router) { r.Put("/orders/{id}", ok) },
			`"PUT /orders/{id}"`, nil,
		},
		"Get then Handle for every method": {
			func(r chi.Router) { r.Get("/files", ok) },
			func(r chi.Router) { r.HandleFunc("/files", ok) },
			`"GET /files"`, nil,
		},
		"Handle for every method then Delete": {
			func(r chi.Router) { r.Handle("/files", okH()) },
			func(r chi.Router) { r.Delete("/files", ok) },
			`"DELETE /files"`, nil,
		},
		"Handle twice": {
			func(r chi.Router) { r.Handle("/files", okH()) },
			func(r chi.Router) { r.Handle("/files", okH()) },
			`"every method of /files"`, nil,
		},
		"one parameter under two names": {
			func(r chi.Router) { r.Get("/users/{id}", ok) },
			func(r chi.Router) { r.With(authn.Anonymous).Get("/users/{uid}", ok) },
			`"GET /users/{uid}" (first as "/users/{id}")`, []string{"(authenticated)", "(authn.Anonymous)"},
		},
		"parameters with one expression under other names": {
			func(r chi.Router) { r.Get("/n/{a:[0-9]{3}}-{b}", ok) },
			func(r chi.Router) { r.Get("/n/{x:[0-9]{3}}-{y}", ok) },
			`"GET /n/{x:[0-9]{3}}-{y}" (first as "/n/{a:[0-9]{3}}-{b}")`, nil,
		},
		"a Mount twice": {
			func(r chi.Router) { r.Mount("/m", authn.NewChiRouter()) },
			func(r chi.Router) { r.Mount("/m", chi.NewRouter()) },
			`"every method of /m"`, nil,
		},
		"a route where a Route is mounted": {
			func(r chi.Router) { r.Route("/api", func(r chi.Router) { r.Get("/", ok) }) },
			func(r chi.Router) { r.With(authn.Anonymous).Get("/api", ok) },
			`"GET /api"`, []string{"(authenticated)", "(authn.Anonymous)"},
		},
		"a Mount where a route is": {
			func(r chi.Router) { r.Get("/files/*", ok) },
			func(r chi.Router) { r.Mount("/files/", http.FileServer(http.Dir("."))) },
			`"GET /files/*"`, nil,
		},
		"an expression with and without chi's anchors": {
			func(r chi.Router) { r.Get("/n/{id:[0-9]+}", ok) },
			func(r chi.Router) { r.Get("/n/{id:^[0-9]+$}", ok) },
			`"GET /n/{id:^[0-9]+$}" (first as "/n/{id:[0-9]+}")`, nil,
		},
		"a route over the mounted router's own route": {
			func(r chi.Router) { r.Route("/users", func(r chi.Router) { r.Get("/", ok) }) },
			func(r chi.Router) { r.Get("/users", ok) },
			`"GET /users"`, nil,
		},
		"a Handle over the mounted router's own route": {
			func(r chi.Router) { r.Route("/users", func(r chi.Router) { r.Put("/", ok) }) },
			func(r chi.Router) { r.Handle("/users/", okH()) },
			`"every method of /users/"`, nil,
		},
		"a route over everything mounted": {
			func(r chi.Router) { r.Mount("/static", http.FileServer(http.Dir("."))) },
			func(r chi.Router) { r.Get("/static/*", ok) },
			`"GET /static/*"`, nil,
		},
		"inside one Route, named with its mount": {
			func(r chi.Router) {
				r.Route("/api", func(r chi.Router) {
					r.With(authn.Require("admin")).Patch("/users/{id}", ok)
					r.Group(func(r chi.Router) { r.Use(authn.Anonymous); r.Patch("/users/{id}", ok) })
				})
			},
			func(chi.Router) {},
			`"PATCH /api/users/{id}"`, []string{"(authn.Require(admin))", "(authn.Anonymous)"},
		},
		"a Route's guard is named on its routes": {
			func(r chi.Router) {
				r.With(authn.Require("read")).Route("/v1", func(r chi.Router) {
					r.Options("/x", ok)
					r.With(authn.Anonymous).Options("/x", ok)
				})
			},
			func(chi.Router) {},
			`"OPTIONS /v1/x"`, []string{"(authn.Require(read))", "(authn.Anonymous and authn.Require(read))"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := authn.NewChiRouter()
			got := registerPanic(func() { tc.first(r); tc.second(r) })
			if !strings.Contains(got, tc.route+" is registered twice") || strings.Count(got, "chi_router_test.go:") != 2 {
				t.Fatalf("panic %q does not name %s and both registrations", got, tc.route)
			}
			for _, w := range tc.words {
				if !strings.Contains(got, w) {
					t.Errorf("panic %q does not say %s", got, w)
				}
			}
		})
	}
}

// Routes that chi keeps apart are not refused: other methods, other
// patterns, one pattern in two sub-routers, Head beside Get, parameters
// with other expressions.
func TestChiRouteRegisteredOnceIsServed(t *testing.T) {
	r := authn.NewChiRouter()
	msg := registerPanic(func() {
		r.Get("/report", ok)
		r.Post("/report", ok)
		r.Head("/report", ok)
		r.Connect("/report", ok)
		r.Trace("/report", ok)
		r.Query("/report", ok)
		r.With(authn.Anonymous).Get("/reports", ok)
		r.Route("/a", func(r chi.Router) { r.Get("/report", ok) })
		r.Route("/b", func(r chi.Router) { r.Get("/report", ok) })
		r.Get("/n/{a:[0-9]{3}}", ok) // chi tells parameters apart by expression
		r.Get("/n/{a:[0-9]{4}}", ok)
		r.Get("/n/{a}", ok)
		// At a mount's own path, a route the mounted router does not answer
		// (another method, another path, a handler that is no chi router).
		r.Route("/users", func(r chi.Router) { r.Get("/{id}", ok); r.Post("/", ok) })
		r.Get("/users", ok)
		r.Mount("/static", http.FileServer(http.Dir(".")))
		r.Get("/static", ok)
	})
	if msg != "" {
		t.Fatalf("distinct routes refused: %s", msg)
	}
	var listed []string
	_ = chi.Walk(r, func(method, pattern string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		listed = append(listed, method+" "+pattern)
		return nil
	})
	for _, want := range []string{"GET /a/report", "GET /b/report", "GET /n/{a}", "GET /users", "GET /users/{id}", "POST /users/", "GET /static", "GET /static/*"} {
		if !slices.Contains(listed, want) {
			t.Errorf("chi.Walk lists %v, without %s", listed, want)
		}
	}
}

// chi's own refusals stay chi's, and a route chi refused may be registered
// again correctly.
func TestChiRouterKeepsChisRefusals(t *testing.T) {
	r := authn.NewChiRouter()
	if got := registerPanic(func() { r.Method("FETCH", "/x", okH()) }); !strings.Contains(got, "'FETCH' http method is not supported") {
		t.Fatalf("an unknown method panicked with %q, want chi's refusal", got)
	}
	if got := registerPanic(func() { r.Route("/sub", nil) }); !strings.Contains(got, "nil subrouter on '/sub'") {
		t.Fatalf("a nil Route panicked with %q, want chi's refusal", got)
	}
	if got := registerPanic(func() { r.Mount("/m", r) }); !strings.Contains(got, "onto itself") {
		t.Fatalf("a router mounted on itself panicked with %q, want chi's refusal", got)
	}
	if got := registerPanic(func() { r.Method("GET", "/x", okH()) }); got != "" {
		t.Fatalf("a route chi refused before was remembered: %s", got)
	}
}

// Behind the gate it serves as chi does: guards read, HEAD answered as GET,
// a sub-router given the parent's NotFound, and the chi router itself
// dispatched (so the pooled route context applies).
func TestChiRouterBehindTheGate(t *testing.T) {
	r := authn.NewChiRouter()
	r.NotFound(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	r.With(authn.Anonymous).Get("/hello", ok)
	r.Get("/me", ok)
	sub := authn.NewChiRouter()
	sub.Get("/x", ok)
	r.Mount("/sub", sub)
	if _, isChi := chihead.Wrap(r).Mux.(*chi.Mux); !isChi {
		t.Fatal("svc serves the recording router instead of the chi router it wraps")
	}
	srv := gateServer(t, svcerrors.New(), r, newFake())
	for _, tc := range []struct {
		method, path, token string
		status              int
		body                string
	}{
		{"GET", "/hello", "", 200, "hello stranger"},
		{"GET", "/me", "", 401, ""},
		{"GET", "/me", "alice-token", 200, "hello alice"},
		{"HEAD", "/me", "alice-token", 200, ""},
		{"GET", "/sub/x", "alice-token", 200, "hello alice"},
		{"GET", "/sub/nothing", "alice-token", http.StatusTeapot, ""},
	} {
		var h http.Header
		if tc.token != "" {
			h = bearerHeader(tc.token)
		}
		got := do(t, srv, tc.method, tc.path, h, "")
		if got.status != tc.status || (tc.body != "" && got.body != tc.body) {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.path, got.status, got.body, tc.status, tc.body)
		}
	}
}

// FuzzChiRouteKey: any pattern, however malformed, gets a key without a
// panic; text without parameters is its own key; a parameter's name never
// changes the key.
func FuzzChiRouteKey(f *testing.F) {
	for _, p := range []string{"/users/{id}", "/n/{a:[0-9]{3}}-{b}", "/{", "/}{:}", "/x/{a:{{}", "/*", "", "{{:}}"} {
		f.Add(p, "id", "uid")
	}
	f.Fuzz(func(t *testing.T, pattern, name, other string) {
		key := authn.ChiRouteKey(pattern)
		if !strings.Contains(pattern, "{") && key != pattern {
			t.Fatalf("key of %q, which has no parameter, is %q", pattern, key)
		}
		if strings.ContainsAny(name+other, "{}:") {
			return
		}
		for _, rest := range []string{"}", ":[0-9]+}"} {
			a, b := authn.ChiRouteKey(pattern+"/{"+name+rest), authn.ChiRouteKey(pattern+"/{"+other+rest)
			if !strings.Contains(pattern, "{") && a != b {
				t.Fatalf("parameters named %q and %q after %q: keys %q and %q", name, other, pattern, a, b)
			}
		}
	})
}

// A route of a router and the same route of a router mounted on it are two
// chi trees, so no registration sees both; chi serves the parent's and
// chi.Walk lists both. The gate refuses that at install, on any chi router.
func TestChiRouteShadowedByAMountIsRefusedAtInstall(t *testing.T) {
	for name, newRouter := range map[string]func() chi.Router{
		"chi.NewRouter":      func() chi.Router { return chi.NewRouter() },
		"authn.NewChiRouter": authn.NewChiRouter,
	} {
		t.Run(name, func(t *testing.T) {
			r := newRouter()
			r.With(authn.Require("admin")).Get("/api/keys", ok)
			sub := newRouter()
			sub.With(authn.Anonymous).Get("/keys", ok)
			r.Mount("/api", sub)
			g, err := authn.New(newFake())
			if err != nil {
				t.Fatal(err)
			}
			_, err = g.Handler(r)
			if !isInstallError(err) || !strings.Contains(err.Error(), "GET /api/keys is listed twice by chi") ||
				!strings.Contains(err.Error(), "guarded authn.Require(admin), then authn.Anonymous") {
				t.Fatalf("install returned %v, want a refusal naming GET /api/keys and both guards", err)
			}
		})
	}
}

// A route refused after install (here listed twice) is logged once and
// stays protected, and routes added after it are still read: the gate does
// not stop learning routes at the first bad one.
func TestChiRouteRefusedAfterInstallLeavesTheOthersRead(t *testing.T) {
	r := chi.NewRouter()
	sub := chi.NewRouter()
	sub.With(authn.Anonymous).Get("/x", ok)
	r.Mount("/api", sub)
	g, err := authn.New(newFake())
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zapcore.DebugLevel)
	g.SetLogger(zap.New(core))
	h, err := g.Handler(r)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptestServer(t, h)
	r.With(authn.Anonymous).Get("/api/x", ok) // shadows the mounted one
	r.With(authn.Anonymous).Get("/late", ok)
	for i := 0; i < 3; i++ {
		if got := do(t, srv, "GET", "/late", nil, ""); got.status != http.StatusOK {
			t.Fatalf("an anonymous route added after a refused one: %d, want 200", got.status)
		}
		if got := do(t, srv, "GET", "/api/x", nil, ""); got.status != http.StatusUnauthorized {
			t.Fatalf("the refused route without a token: %d, want 401 (it stays protected)", got.status)
		}
	}
	refusals := logs.FilterMessage("authn: a route added after install is refused; it stays protected")
	if refusals.Len() != 1 || !strings.Contains(refusals.All()[0].ContextMap()["error"].(string), "GET /api/x is listed twice") {
		t.Fatalf("refusal logged %d times (%v), want once naming GET /api/x", refusals.Len(), refusals.All())
	}
}

// chi.Walk and chi's Find name some routes of sub-routers differently: a
// Route's "/" route is walked as "/v/" and found as "/v" too, a route under
// Route("/", …) is walked as "/a/*/x" and found as "/a/x". The gate judges
// each by its own guard, and a route of the mount's path of its own (on
// plain chi: NewChiRouter refuses it over a "/" route) by its guard.
func TestChiSubRouterRoutesWalkedAndFoundAlike(t *testing.T) {
	checked := authn.NewChiRouter()
	checked.Route("/v", func(r chi.Router) { r.With(authn.Anonymous).Get("/", ok) })
	checked.Route("/a", func(r chi.Router) {
		r.Route("/", func(r chi.Router) { r.With(authn.Anonymous).Get("/x", ok) })
	})
	plain := chi.NewRouter()
	plain.Route("/w", func(r chi.Router) { r.Get("/", ok) })
	plain.With(authn.Anonymous).Get("/w", ok)
	for _, tc := range []struct {
		router http.Handler
		path   string
		status int
	}{
		{checked, "/v", 200}, {checked, "/v/", 200}, {checked, "/a/x", 200},
		{plain, "/w", 200}, {plain, "/w/", 401},
	} {
		srv := gateServer(t, svcerrors.New(), tc.router, newFake())
		if got := do(t, srv, "GET", tc.path, nil, ""); got.status != tc.status {
			t.Errorf("GET %s without a token: %d, want %d", tc.path, got.status, tc.status)
		}
	}
}
