package authn_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

const docs = "https://github.com/svckit/svc/blob/main/docs/errors.md#"

// refusalCase is one row of the spec's "Refusal responses" table.
type refusalCase struct {
	name      string
	method    string
	path      string
	header    http.Header
	body      string
	status    int
	anchor    string
	reason    string
	challenge string // exact WWW-Authenticate, "" for none
}

func refusalTable() []refusalCase {
	return []refusalCase{
		{"no credential", "GET", "/me", nil, "", 401, "authentication-required", "", "Bearer"},
		{"basic scheme", "GET", "/me", http.Header{"Authorization": {"Basic YWxpY2U6c2VjcmV0"}}, "", 401, "authentication-required", "", "Bearer"},
		{"expired token", "GET", "/me", bearerHeader("expired-token"), "", 401, "token-rejected", "expired", `Bearer error="invalid_token"`},
		{"forged token", "GET", "/me", bearerHeader("forged-token"), "", 401, "token-rejected", "signature", `Bearer error="invalid_token"`},
		{"malformed token", "GET", "/me", bearerHeader("not a token"), "", 401, "token-rejected", "malformed", `Bearer error="invalid_token"`},
		{"two headers", "GET", "/me", http.Header{"Authorization": {"Bearer alice-token", "Bearer admin-token"}}, "", 400, "ambiguous-credentials", "", `Bearer error="invalid_request"`},
		{"header and query", "GET", "/me?access_token=x", bearerHeader("alice-token"), "", 400, "ambiguous-credentials", "", `Bearer error="invalid_request"`},
		{"missing scope", "GET", "/admin", bearerHeader("alice-token"), "", 403, "insufficient-scope", "", `Bearer error="insufficient_scope", scope="admin"`},
		{"missing scope of a router", "GET", "/reports/secret", bearerHeader("alice-token"), "", 403, "insufficient-scope", "", `Bearer error="insufficient_scope", scope="read admin"`},
		{"keys not loaded", "GET", "/me", bearerHeader("nokeys-token"), "", 503, "signing-keys-unavailable", "", ""},
		{"unknown URL", "GET", "/nowhere", nil, "", 401, "authentication-required", "", "Bearer"},
		{"method no route serves", "DELETE", "/me", nil, "", 401, "authentication-required", "", "Bearer"},
		{"trailing-slash variant", "GET", "/me/", nil, "", 401, "authentication-required", "", "Bearer"},
		{"mounted plain handler", "GET", "/files/x.txt", nil, "", 401, "authentication-required", "", "Bearer"},
		{"mounted router, protected route", "GET", "/sub/closed", nil, "", 401, "authentication-required", "", "Bearer"},
		{"anonymous on GET only", "POST", "/hello", nil, "", 401, "authentication-required", "", "Bearer"},
		{"anonymous route, bad token", "GET", "/hello", bearerHeader("forged-token"), "", 401, "token-rejected", "signature", `Bearer error="invalid_token"`},
	}
}

func TestRefusalsTableBothFormats(t *testing.T) {
	formats := map[string]*svcerrors.Responses{"rfc9457": svcerrors.New(), "tmf630": svcerrors.NewTMF("API", svcerrors.KindDocs)}
	for fname, res := range formats {
		srv := gateServer(t, res, exampleRouter(), newFake())
		for _, tc := range refusalTable() {
			t.Run(fname+"/"+tc.name, func(t *testing.T) {
				got := do(t, srv, tc.method, tc.path, tc.header, tc.body)
				if got.status != tc.status {
					t.Fatalf("status %d, want %d: %s", got.status, tc.status, got.body)
				}
				if c := got.header.Get("WWW-Authenticate"); c != tc.challenge {
					t.Errorf("WWW-Authenticate = %q, want %q", c, tc.challenge)
				}
				if got.header.Get("Cache-Control") != "no-store" || got.header.Get("X-Content-Type-Options") != "nosniff" {
					t.Errorf("safety headers: %v", got.header)
				}
				for _, secret := range []string{"alice-token", "admin-token", "expired-token", "forged-token", "YWxpY2U6c2VjcmV0", "error_description"} {
					if strings.Contains(got.body, secret) || strings.Contains(got.header.Get("WWW-Authenticate"), secret) {
						t.Errorf("response quotes %q", secret)
					}
				}
				if fname == "rfc9457" {
					if got.json["type"] != docs+tc.anchor || got.json["status"] != float64(tc.status) {
						t.Errorf("body %s", got.body)
					}
					if r, has := got.json["reason"]; (tc.reason != "") != has || (has && r != tc.reason) {
						t.Errorf("reason = %v, want %q", r, tc.reason)
					}
				} else if got.json["code"] != "API-"+strings.ToUpper(tc.anchor) {
					t.Errorf("body %s", got.body)
				}
			})
		}
	}
}

func TestWhatIsServed(t *testing.T) {
	v := newFake()
	srv := gateServer(t, svcerrors.New(), exampleRouter(), v, authn.Exclude("/healthz", "/docs/*"))
	cases := []struct {
		name, method, path string
		header             http.Header
		want               string
	}{
		{"excluded exact", "GET", "/healthz", nil, "hello stranger"},
		{"excluded: a token there is not read", "GET", "/healthz", bearerHeader("forged-token"), "hello stranger"},
		{"excluded prefix", "GET", "/docs/a/b", nil, "hello stranger"},
		{"anonymous, no token", "GET", "/hello", nil, "hello stranger"},
		{"anonymous, valid token", "GET", "/hello", bearerHeader("alice-token"), "hello alice"},
		{"protected, valid token", "GET", "/me", bearerHeader("alice-token"), "hello alice"},
		{"scope held", "GET", "/admin", bearerHeader("admin-token"), "hello root"},
		{"router scope held", "GET", "/reports/", bearerHeader("alice-token"), "hello alice"},
		{"mounted router, anonymous route", "GET", "/sub/open", nil, "hello stranger"},
		{"scheme is case-insensitive", "GET", "/me", http.Header{"Authorization": {"bEaReR alice-token"}}, "hello alice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := v.calls
			got := do(t, srv, tc.method, tc.path, tc.header, "")
			if got.status != 200 || got.body != tc.want {
				t.Fatalf("%d %q, want 200 %q", got.status, got.body, tc.want)
			}
			if strings.HasPrefix(tc.name, "excluded") && v.calls != before {
				t.Fatal("the verifier ran on an excluded path")
			}
		})
	}
}

func TestFormBodyIsKeptForTheHandler(t *testing.T) {
	r := chi.NewRouter()
	r.Post("/form", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		_, _ = w.Write([]byte(r.PostForm.Get("name")))
	})
	srv := gateServer(t, nil, r, newFake())
	h := bearerHeader("alice-token")
	h.Set("Content-Type", "application/x-www-form-urlencoded")
	got := do(t, srv, "POST", "/form", h, "name=ada&x="+strings.Repeat("y", 100<<10))
	if got.status != 200 || got.body != "ada" {
		t.Fatalf("%d %q", got.status, got.body)
	}
}

func TestUnauthenticatedAndWrongMethodAnswerTheSame401(t *testing.T) {
	srv := gateServer(t, svcerrors.New(), exampleRouter(), newFake())
	a := do(t, srv, "GET", "/me", nil, "")
	for _, path := range []string{"/nowhere", "/me/"} {
		b := do(t, srv, "GET", path, nil, "")
		delete(a.json, "instance")
		delete(b.json, "instance")
		if b.status != a.status || b.header.Get("WWW-Authenticate") != a.header.Get("WWW-Authenticate") ||
			b.json["type"] != a.json["type"] || b.json["detail"] != a.json["detail"] {
			t.Fatalf("%s answers differently from a protected route: %v vs %v", path, b.json, a.json)
		}
	}
}

func TestRoutesAddedAfterInstallAreGated(t *testing.T) {
	r := chi.NewRouter()
	r.Get("/first", ok)
	srv := gateServer(t, nil, r, newFake())
	r.Get("/later", ok)
	r.With(authn.Anonymous).Get("/later-open", ok)
	if got := do(t, srv, "GET", "/later", nil, ""); got.status != 401 {
		t.Fatalf("/later: %d", got.status)
	}
	if got := do(t, srv, "GET", "/later-open", nil, ""); got.status != 200 {
		t.Fatalf("/later-open: %d", got.status)
	}
}

func TestInstallRefusals(t *testing.T) {
	cases := []struct {
		name  string
		build func(r chi.Router)
		opts  []authn.Option
		want  string
	}{
		{"anonymous and require", func(r chi.Router) { r.With(authn.Anonymous, authn.Require()).Get("/x", ok) }, nil, "GET /x is Anonymous and also requires"},
		{"anonymous route in a scoped group", func(r chi.Router) {
			r.Group(func(r chi.Router) { r.Use(authn.Require("a")); r.With(authn.Anonymous).Get("/y", ok) })
		}, nil, "GET /y is Anonymous"},
		{"excluded route with scopes", func(r chi.Router) { r.With(authn.Require("admin")).Get("/public/x", ok) },
			[]authn.Option{authn.Exclude("/public/*")}, "GET /public/x is excluded from authentication but requires scopes"},
		{"route at the metadata path", func(r chi.Router) { r.Get("/.well-known/oauth-protected-resource/api", ok) },
			[]authn.Option{authn.Resource("https://svc.example.com/api")}, "is at the protected-resource metadata path"},
		// RFC 6750 §3: a scope="…" value holds no quote, backslash, space or
		// control character, so a challenge could not name these scopes.
		{"scope with a quote", func(r chi.Router) { r.With(authn.Require(`a"b`)).Get("/x", ok) }, nil, `GET /x requires scope "a\"b"`},
		{"scope with a space", func(r chi.Router) { r.With(authn.Require("read write")).Get("/x", ok) }, nil, `requires scope "read write"`},
		{"empty scope", func(r chi.Router) { r.With(authn.Require("")).Get("/x", ok) }, nil, `requires scope ""`},
		{"scope of a router", func(r chi.Router) {
			r.Route("/r", func(r chi.Router) { r.Use(authn.Require("ok", "caf\u00e9")); r.Get("/", ok) })
		}, nil, "GET /r/ requires scope \"caf\u00e9\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := chi.NewRouter()
			tc.build(r)
			g, err := authn.New(newFake(), tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = g.Handler(r)
			if !isInstallError(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want an install error containing %q", err, tc.want)
			}
		})
	}
}

func TestExcludedRouteRequiringACallerAnswers401(t *testing.T) {
	r := chi.NewRouter()
	r.With(authn.Require()).Get("/open/me", ok)
	srv := gateServer(t, nil, r, newFake(), authn.Exclude("/open/*"))
	for _, h := range []http.Header{nil, bearerHeader("alice-token")} {
		if got := do(t, srv, "GET", "/open/me", h, ""); got.status != 401 || got.json["type"] != docs+"authentication-required" {
			t.Fatalf("%d %s", got.status, got.body)
		}
	}
}

func TestExcludePatternRefusals(t *testing.T) {
	for _, p := range []string{"*", "/*", "/public*", "/a*/b", "relative", "", "/users/{id}", "/a/*/b/*"} {
		if _, err := authn.New(newFake(), authn.Exclude(p)); err == nil {
			t.Errorf("Exclude(%q) accepted", p)
		}
	}
	for _, p := range []string{"/healthz", "/docs/*", "/"} {
		if _, err := authn.New(newFake(), authn.Exclude(p)); err != nil {
			t.Errorf("Exclude(%q): %v", p, err)
		}
	}
}

func TestVerifierFailureIsA500(t *testing.T) {
	srv := gateServer(t, svcerrors.New(), exampleRouter(), newFake())
	got := do(t, srv, "GET", "/me", bearerHeader("broken-token"), "")
	if got.status != 500 || strings.Contains(got.body, "EOF") || got.header.Get("WWW-Authenticate") != "" {
		t.Fatalf("%d %s", got.status, got.body)
	}
}

func TestAGateKnowingNoRoutesServesPublicPathsThroughExcludeAlone(t *testing.T) {
	g, err := authn.New(newFake(), authn.Exclude("/healthz"))
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.Get("/healthz", ok)
	r.With(authn.Anonymous).Get("/hello", ok)
	r.Get("/me", ok)
	// Behind a handler of its own, the gate cannot read the router.
	h, err := g.Handler(http.HandlerFunc(r.ServeHTTP))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptestServer(t, h)
	if got := do(t, srv, "GET", "/healthz", nil, ""); got.status != 200 {
		t.Fatalf("/healthz %d", got.status)
	}
	if got := do(t, srv, "GET", "/hello", nil, ""); got.status != 401 {
		t.Fatalf("/hello without token: %d, want 401 (hand-built stacks know no routes)", got.status)
	}
	if got := do(t, srv, "GET", "/me", bearerHeader("alice-token"), ""); got.status != 200 || got.body != "hello alice" {
		t.Fatalf("/me %d %s", got.status, got.body)
	}
	if _, err := authn.New(newFake(), authn.Exclude("*")); err == nil {
		t.Fatal("invalid settings accepted")
	}
}

func TestCORSPreflightReachesTheAppsCORSMiddleware(t *testing.T) {
	r := chi.NewRouter()
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				w.Header().Set("Access-Control-Allow-Origin", "*")
				w.WriteHeader(http.StatusNoContent)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	r.Get("/me", ok)
	r.Options("/guarded", ok) // a protected OPTIONS route stays protected
	srv := gateServer(t, nil, r, newFake())
	pre := http.Header{"Origin": {"https://app.test"}, "Access-Control-Request-Method": {"GET"}}
	if got := do(t, srv, "OPTIONS", "/me", pre, ""); got.status != 204 || got.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("preflight: %d", got.status)
	}
	if got := do(t, srv, "OPTIONS", "/guarded", pre, ""); got.status != 401 {
		t.Fatalf("protected OPTIONS route: %d", got.status)
	}
	if got := do(t, srv, "OPTIONS", "/me", nil, ""); got.status != 401 {
		t.Fatalf("plain OPTIONS: %d", got.status)
	}
}

// A preflight-shaped request is let past the gate without a token only for
// a URL some route serves with the method it asks about: the app's own
// not-found handler (router rule 4: a router default of your own is gated)
// never answers it.
func TestPreflightToNoRouteMeetsTheGate(t *testing.T) {
	r := chi.NewRouter()
	r.Get("/me", ok)
	r.NotFound(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.WriteString(w, "DEFAULT-CONTENT "+req.URL.Path)
	})
	srv := gateServer(t, nil, r, newFake())
	pre := http.Header{"Origin": {"https://evil.test"}, "Access-Control-Request-Method": {"GET"}}
	got := do(t, srv, "OPTIONS", "/secret.txt", pre, "")
	if got.status != 401 || strings.Contains(got.body, "DEFAULT-CONTENT") || got.header.Get("WWW-Authenticate") != "Bearer" {
		t.Fatalf("preflight to no route: %d %q %s", got.status, got.header.Get("WWW-Authenticate"), got.body)
	}
	pre.Set("Access-Control-Request-Method", "DELETE")
	if got := do(t, srv, "OPTIONS", "/me", pre, ""); got.status != 401 {
		t.Fatalf("preflight for a method /me does not serve: %d %s", got.status, got.body)
	}
}

// RFC 6750 §3: the challenge names the scope necessary for the resource,
// every marker's of the route, router included; naming only the failing
// marker's would send a client that asks for those alone to the next one.
func TestInsufficientScopeNamesEveryScopeOfTheRoute(t *testing.T) {
	v := newFake()
	v.callers["bare-token"] = bearer.Principal{Subject: "bob", Issuer: "https://idp.test", Authenticated: true}
	for name, h := range map[string]http.Handler{"chi": exampleRouter(), "ServeMux": func() http.Handler {
		mux := authn.NewServeMux()
		mux.Handle("GET /reports/secret", authn.Require("read")(authn.Require("admin")(http.HandlerFunc(ok))))
		return mux
	}()} {
		srv := gateServer(t, nil, h, v)
		got := do(t, srv, "GET", "/reports/secret", bearerHeader("bare-token"), "")
		if want := `Bearer error="insufficient_scope", scope="read admin"`; got.status != 403 || got.header.Get("WWW-Authenticate") != want {
			t.Errorf("%s: %d %q, want 403 %q", name, got.status, got.header.Get("WWW-Authenticate"), want)
		}
	}
}
