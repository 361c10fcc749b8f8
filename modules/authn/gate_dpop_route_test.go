package authn_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/dpoptest"
	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// Issue 21: authn.RequireDPoP makes DPoP required on one route while the
// gate's other routes take Bearer, on chi and on ServeMux, checked before
// the route's scopes.
func TestRequireDPoPOnOneRoute(t *testing.T) {
	alice := dpoptest.New(t)
	routers := map[string]func() http.Handler{
		"chi": func() http.Handler {
			r := chi.NewRouter()
			r.Get("/me", ok)
			r.With(authn.RequireDPoP, authn.Require("admin")).Get("/pay", ok)
			r.With(authn.RequireDPoP).Get("/bound", ok)
			return r
		},
		"servemux": func() http.Handler {
			m := authn.NewServeMux()
			m.HandleFunc("GET /me", ok)
			m.Handle("GET /pay", authn.RequireDPoP(authn.Require("admin")(http.HandlerFunc(ok))))
			m.Handle("GET /bound", authn.RequireDPoP(http.HandlerFunc(ok)))
			return m
		},
	}
	for name, router := range routers {
		t.Run(name, func(t *testing.T) {
			srv := gateServer(t, svcerrors.New(), router(), dpopFake(alice), authn.DPoP(newDPoPVerifier(t), false))
			viaDPoP := func(path string) http.Header {
				return http.Header{"Authorization": {"DPoP bound-token"}, "Dpop": {alice.Proof(t, "GET", srv.URL+path, "bound-token", "")}}
			}
			for _, c := range []struct {
				name      string
				path      string
				header    http.Header
				status    int
				reason    string
				challenge string
			}{
				{"Bearer where DPoP is allowed", "/me", bearerHeader("alice-token"), 200, "", ""},
				{"Bearer where DPoP is required", "/bound", bearerHeader("alice-token"), 401, "dpop-required", `DPoP algs="ES256", error="invalid_token"`},
				{"DPoP where it is required", "/bound", viaDPoP("/bound"), 200, "", ""},
				// DPoP is checked before the scopes: 401, not 403.
				{"Bearer without the scope where DPoP is required", "/pay", bearerHeader("alice-token"), 401, "dpop-required", `DPoP algs="ES256", error="invalid_token"`},
				{"DPoP without the scope", "/pay", viaDPoP("/pay"), 403, "", `Bearer error="insufficient_scope"`},
			} {
				t.Run(c.name, func(t *testing.T) {
					got := do(t, srv, "GET", c.path, c.header, "")
					if got.status != c.status {
						t.Fatalf("status %d, want %d: %s", got.status, c.status, got.body)
					}
					if r, _ := got.json["reason"].(string); c.reason != "" && r != c.reason {
						t.Fatalf("reason %q, want %q: %s", r, c.reason, got.body)
					}
					if c.challenge != "" && !strings.HasPrefix(got.header.Get("WWW-Authenticate"), c.challenge) {
						t.Fatalf("WWW-Authenticate %q, want %q", got.header.Values("WWW-Authenticate"), c.challenge)
					}
					if c.status == 401 && strings.Contains(got.header.Get("WWW-Authenticate"), "Bearer") {
						t.Fatalf("a route requiring DPoP challenges Bearer too: %q", got.header.Values("WWW-Authenticate"))
					}
				})
			}
		})
	}
}

// A route requiring DPoP where it cannot hold is refused at install,
// naming the route.
func TestRequireDPoPRefusedAtInstall(t *testing.T) {
	alice := dpoptest.New(t)
	withDPoP := authn.DPoP(newDPoPVerifier(t), false)
	for _, c := range []struct {
		name  string
		opts  []authn.Option
		route func(r chi.Router)
		want  string
	}{
		{"gate without DPoP", nil, func(r chi.Router) { r.With(authn.RequireDPoP).Get("/pay", ok) }, "authn.DPoP"},
		{"anonymous route", []authn.Option{withDPoP}, func(r chi.Router) { r.With(authn.Anonymous, authn.RequireDPoP).Get("/pay", ok) }, "Anonymous"},
		{"excluded route", []authn.Option{withDPoP, authn.Exclude("/pay")}, func(r chi.Router) { r.With(authn.RequireDPoP).Get("/pay", ok) }, "excluded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := authn.New(dpopFake(alice), c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			r := chi.NewRouter()
			c.route(r)
			_, err = g.Handler(r)
			if !isInstallError(err) || !strings.Contains(err.Error(), "GET /pay") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want the route refused naming %s", err, c.want)
			}
			m := authn.NewServeMux()
			m.Handle("GET /pay", wrapAll(r))
			if _, err := g.Handler(m); c.name != "excluded route" && !isInstallError(err) {
				t.Fatalf("ServeMux: err = %v, want the route refused", err)
			}
		})
	}
}

// wrapAll applies the chi route's markers, read back from the router, to
// a ServeMux handler: the same set-up on the other router.
func wrapAll(r chi.Router) http.Handler {
	var h http.Handler
	_ = chi.Walk(r, func(_, _ string, handler http.Handler, mws ...func(http.Handler) http.Handler) error {
		h = handler
		for i := len(mws) - 1; i >= 0; i-- {
			h = mws[i](h)
		}
		return nil
	})
	return h
}

// `check` reads DPoP per route: required where the marker or the gate
// asks, allowed elsewhere, nothing without DPoP.
func TestGuardShowsDPoPPerRoute(t *testing.T) {
	alice := dpoptest.New(t)
	pay := authn.RequireDPoP(http.HandlerFunc(ok))
	me := http.HandlerFunc(ok)
	for _, c := range []struct {
		name    string
		opts    []authn.Option
		h       http.Handler
		want    string
		wantNot string
	}{
		{"marker", []authn.Option{authn.DPoP(newDPoPVerifier(t), false)}, pay, "dpop=required", ""},
		{"allowed", []authn.Option{authn.DPoP(newDPoPVerifier(t), false)}, me, "dpop=allowed", ""},
		{"required by the gate", []authn.Option{authn.DPoP(newDPoPVerifier(t), true)}, me, "dpop=required", ""},
		{"no DPoP", nil, me, "", "dpop"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := authn.New(dpopFake(alice), c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			mode, words := g.Guard("GET", "/x", c.h, nil)
			got := strings.Join(words, " ")
			if mode != "authenticated" || c.want != "" && got != c.want || c.wantNot != "" && strings.Contains(got, c.wantNot) {
				t.Fatalf("Guard = %s %q, want %q", mode, got, c.want)
			}
		})
	}
}
