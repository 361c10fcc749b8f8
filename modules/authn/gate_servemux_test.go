package authn_test

import (
	"net/http"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// The gate on net/http's ServeMux (the spec's framework C), one test per
// rule of "Gate placement" for C, mirroring the chi tests.

func okH() http.Handler { return http.HandlerFunc(ok) }

// exampleMux is exampleRouter on a ServeMux: the same paths, so the
// refusal table applies unchanged.
func exampleMux() *authn.ServeMux {
	mux := authn.NewServeMux()
	mux.HandleFunc("GET /healthz", ok)
	mux.Handle("GET /hello", authn.Anonymous(okH()))
	mux.HandleFunc("POST /hello", ok) // same path, other method: authenticated
	mux.HandleFunc("GET /me", ok)
	mux.Handle("GET /admin", authn.Require("admin")(okH()))
	mux.Handle("GET /reports/{$}", authn.Require("read")(okH()))
	mux.Handle("GET /reports/secret", authn.Require("read")(authn.Require("admin")(okH())))
	sub := http.NewServeMux()
	sub.Handle("GET /open", authn.Anonymous(okH()))
	sub.HandleFunc("GET /closed", ok)
	mux.Handle("/sub/", http.StripPrefix("/sub", sub))
	mux.Handle("/pub/", authn.Anonymous(http.StripPrefix("/pub", sub)))
	mux.Handle("/files/", http.StripPrefix("/files", http.FileServer(http.Dir("testdata-none"))))
	mux.HandleFunc("GET /docs/", ok)
	return mux
}

func TestServeMuxRefusalsTableBothFormats(t *testing.T) {
	formats := map[string]*svcerrors.Responses{"rfc9457": svcerrors.New(), "tmf630": svcerrors.NewTMF("API", svcerrors.KindDocs)}
	for fname, res := range formats {
		for _, plain := range []bool{false, true} {
			var mux http.Handler = exampleMux()
			if plain {
				mux = exampleMux().ServeMux // the standard mux: same answers
			}
			srv := gateServer(t, res, mux, newFake())
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
					if fname == "rfc9457" {
						if got.json["type"] != docs+tc.anchor || got.header.Get("Content-Type") != svcerrors.ProblemMediaType {
							t.Errorf("body %s (%s)", got.body, got.header.Get("Content-Type"))
						}
					} else if got.json["code"] != "API-"+strings.ToUpper(tc.anchor) || got.header.Get("Content-Type") != "application/json" {
						t.Errorf("body %s", got.body)
					}
				})
			}
		}
	}
}

func TestServeMuxWhatIsServed(t *testing.T) {
	v := newFake()
	srv := gateServer(t, svcerrors.New(), exampleMux(), v, authn.Exclude("/healthz", "/docs/*"))
	cases := []struct {
		name, method, path string
		header             http.Header
		status             int
		want               string
	}{
		{"excluded exact", "GET", "/healthz", nil, 200, "hello stranger"},
		{"excluded: a token there is not read", "GET", "/healthz", bearerHeader("forged-token"), 200, "hello stranger"},
		{"excluded prefix", "GET", "/docs/a/b", nil, 200, "hello stranger"},
		{"anonymous, no token", "GET", "/hello", nil, 200, "hello stranger"},
		{"anonymous GET also serves HEAD", "HEAD", "/hello", nil, 200, ""},
		{"anonymous, valid token", "GET", "/hello", bearerHeader("alice-token"), 200, "hello alice"},
		{"protected, valid token", "GET", "/me", bearerHeader("alice-token"), 200, "hello alice"},
		{"scope held", "GET", "/admin", bearerHeader("admin-token"), 200, "hello root"},
		{"scopes of both markers held", "GET", "/reports/secret", bearerHeader("admin-token"), 200, "hello root"},
		{"exact-match pattern", "GET", "/reports/", bearerHeader("alice-token"), 200, "hello alice"},
		{"a mount is one route: its anonymous handler needs a token", "GET", "/sub/open", nil, 401, ""},
		{"a mount is one route: with a token", "GET", "/sub/closed", bearerHeader("alice-token"), 200, "hello alice"},
		{"an anonymous mount opens all of it", "GET", "/pub/closed", nil, 200, "hello stranger"},
		{"a redirect to an anonymous route is refused like any URL", "GET", "/reports", nil, 401, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := do(t, srv, tc.method, tc.path, tc.header, "")
			if got.status != tc.status || (tc.status == 200 && got.body != tc.want) {
				t.Fatalf("%d %q, want %d %q", got.status, got.body, tc.status, tc.want)
			}
		})
	}
}

func TestServeMuxUnknownURLAndWrongMethodAnswerTheSame401(t *testing.T) {
	srv := gateServer(t, svcerrors.New(), exampleMux(), newFake())
	a := do(t, srv, "GET", "/me", nil, "")
	for _, c := range []struct{ method, path string }{{"GET", "/nowhere"}, {"PUT", "/me"}, {"GET", "/me/"}} {
		b := do(t, srv, c.method, c.path, nil, "")
		delete(a.json, "instance")
		delete(b.json, "instance")
		if b.status != 401 || b.header.Get("WWW-Authenticate") != a.header.Get("WWW-Authenticate") ||
			b.json["type"] != a.json["type"] || b.json["detail"] != a.json["detail"] || b.header.Get("Allow") != "" {
			t.Fatalf("%s %s answers differently from a protected route: %v %v", c.method, c.path, b.header, b.json)
		}
	}
	// With a token the mux's own 404 and 405 answer, in the registered format.
	if got := do(t, srv, "PUT", "/me", bearerHeader("alice-token"), ""); got.status != 405 || got.header.Get("Allow") == "" ||
		got.json["type"] != "about:blank" {
		t.Fatalf("405: %d %v %s", got.status, got.header, got.body)
	}
	if got := do(t, srv, "GET", "/nowhere", bearerHeader("alice-token"), ""); got.status != 404 || got.json["type"] != "about:blank" {
		t.Fatalf("404: %d %s", got.status, got.body)
	}
}

func TestServeMuxHandlersRegisteredAfterInstallAreGatedAsTheyLand(t *testing.T) {
	for _, plain := range []bool{false, true} {
		rec := authn.NewServeMux()
		var mux interface {
			http.Handler
			Handle(string, http.Handler)
		} = rec
		if plain {
			mux = http.NewServeMux()
		}
		mux.Handle("GET /first", okH())
		srv := gateServer(t, nil, mux, newFake())
		mux.Handle("GET /later", okH())
		mux.Handle("GET /later-open", authn.Anonymous(okH()))
		mux.Handle("GET /later-scoped", authn.Require("admin")(okH()))
		if got := do(t, srv, "GET", "/later", nil, ""); got.status != 401 {
			t.Fatalf("plain=%v /later: %d", plain, got.status)
		}
		if got := do(t, srv, "GET", "/later-open", nil, ""); got.status != 200 {
			t.Fatalf("plain=%v /later-open: %d", plain, got.status)
		}
		if got := do(t, srv, "GET", "/later-scoped", bearerHeader("alice-token"), ""); got.status != 403 {
			t.Fatalf("plain=%v /later-scoped: %d", plain, got.status)
		}
	}
}

func TestServeMuxInstallRefusals(t *testing.T) {
	cases := []struct {
		name  string
		build func(m *authn.ServeMux)
		opts  []authn.Option
		want  string
	}{
		{"anonymous and require", func(m *authn.ServeMux) { m.Handle("GET /x", authn.Anonymous(authn.Require()(okH()))) }, nil,
			"route GET /x is Anonymous and also requires"},
		{"excluded route with scopes", func(m *authn.ServeMux) { m.Handle("GET /public/x", authn.Require("admin")(okH())) },
			[]authn.Option{authn.Exclude("/public/*")}, "GET /public/x is excluded from authentication but requires scopes"},
		{"excluded subtree with scopes", func(m *authn.ServeMux) { m.Handle("/public/", authn.Require("admin")(okH())) },
			[]authn.Option{authn.Exclude("/public/*")}, "route * /public/ is excluded"},
		{"route at the metadata path", func(m *authn.ServeMux) { m.HandleFunc("GET /.well-known/oauth-protected-resource/api", ok) },
			[]authn.Option{authn.Resource("https://svc.example.com/api")}, "is at the protected-resource metadata path"},
		{"scope RFC 6750 cannot name", func(m *authn.ServeMux) { m.Handle("GET /x", authn.Require(`a"b`)(okH())) }, nil,
			`route GET /x requires scope "a\"b"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := authn.NewServeMux()
			tc.build(m)
			g, err := authn.New(newFake(), tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = g.Handler(m)
			if !isInstallError(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want an install error containing %q", err, tc.want)
			}
		})
	}
}

// A route the gate would refuse that lands after install (or on a plain
// ServeMux, which cannot be listed) is logged once and stays protected.
func TestServeMuxRefusedRouteAfterInstallStaysProtected(t *testing.T) {
	core, logs := observer.New(zapcore.ErrorLevel)
	for _, plain := range []bool{false, true} {
		rec := authn.NewServeMux()
		var mux interface {
			http.Handler
			Handle(string, http.Handler)
		} = rec
		if plain {
			mux = http.NewServeMux()
		}
		g, err := authn.New(newFake(), authn.Exclude("/public/*"))
		if err != nil {
			t.Fatal(err)
		}
		g.SetLogger(zap.New(core))
		h, err := g.Handler(mux)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptestServer(t, h)
		mux.Handle("GET /both", authn.Anonymous(authn.Require("read")(okH())))
		mux.Handle("GET /public/x", authn.Require("admin")(okH()))
		for range 2 {
			if got := do(t, srv, "GET", "/both", nil, ""); got.status != 401 {
				t.Fatalf("plain=%v anonymous+require without a token: %d", plain, got.status)
			}
		}
		if got := do(t, srv, "GET", "/both", bearerHeader("alice-token"), ""); got.status != 200 {
			t.Fatalf("plain=%v with the scope: %d", plain, got.status)
		}
		if got := do(t, srv, "GET", "/public/x", bearerHeader("admin-token"), ""); got.status != 401 {
			t.Fatalf("plain=%v excluded route with scopes: %d", plain, got.status)
		}
	}
	// The recording mux logs both as they land; the plain one logs /both
	// when a request first reaches it (an excluded path is never looked up).
	refused := logs.FilterMessageSnippet("refused; it stays protected")
	if both := refused.FilterFieldKey("error").Filter(func(e observer.LoggedEntry) bool {
		return strings.Contains(e.ContextMap()["error"].(string), "GET /both")
	}).Len(); both != 2 || refused.Len() != 3 {
		t.Fatalf("%d log lines (%d for /both): %v", refused.Len(), both, logs.All())
	}
}

func TestServeMuxRecordsItsRoutes(t *testing.T) {
	m := exampleMux()
	routes := m.Routes()
	if len(routes) != 11 {
		t.Fatalf("%d routes", len(routes))
	}
	if r := routes[1]; r.Method != "GET" || r.Path != "/hello" || r.Handler == nil {
		t.Fatalf("%+v", r)
	}
	if r := routes[7]; r.Method != "" || r.Path != "/sub/" {
		t.Fatalf("%+v", r)
	}
	host := authn.NewServeMux()
	host.HandleFunc("POST  example.com/x/{id}", ok)
	if r := host.Routes()[0]; r.Method != "POST" || r.Host != "example.com" || r.Path != "/x/{id}" {
		t.Fatalf("%+v", r)
	}
	// A pattern the standard mux refuses is refused (by its panic) and not
	// recorded.
	func() {
		defer func() { _ = recover() }()
		host.HandleFunc("POST example.com/x/{id}", ok)
	}()
	if len(host.Routes()) != 1 {
		t.Fatal("a refused pattern was recorded")
	}
}

// A CORS preflight that no protected OPTIONS handler serves is routed, so
// that the app's own CORS handling behind the gate can answer it.
func TestServeMuxCORSPreflightIsRouted(t *testing.T) {
	mux := authn.NewServeMux()
	mux.HandleFunc("GET /me", ok)
	mux.HandleFunc("OPTIONS /guarded", ok)
	mux.HandleFunc("OPTIONS /cors/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.WriteHeader(http.StatusNoContent)
	})
	mux.Handle("OPTIONS /open/", authn.Anonymous(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})))
	srv := gateServer(t, nil, mux, newFake())
	pre := http.Header{"Origin": {"https://app.test"}, "Access-Control-Request-Method": {"GET"}}
	if got := do(t, srv, "OPTIONS", "/me", pre, ""); got.status != 405 {
		t.Fatalf("preflight to a route without OPTIONS: %d, want the mux's own 405", got.status)
	}
	if got := do(t, srv, "OPTIONS", "/guarded", pre, ""); got.status != 401 {
		t.Fatalf("protected OPTIONS handler: %d", got.status)
	}
	if got := do(t, srv, "OPTIONS", "/open/x", pre, ""); got.status != 204 {
		t.Fatalf("anonymous OPTIONS handler: %d", got.status)
	}
	if got := do(t, srv, "OPTIONS", "/me", nil, ""); got.status != 401 {
		t.Fatalf("plain OPTIONS: %d", got.status)
	}
}
