package authn_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/conditional"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/responsecache"
)

// The components behind the gate run after the route's authorization: a
// caller refused for a missing scope spends no budget, claims no
// Idempotency-Key, gets no cached response and learns nothing from a 412.
// A route declaring one outside authn.Require is refused at install.
func TestInstallRefusesComponentMarkersOutsideRequire(t *testing.T) {
	current := func(*http.Request) (string, time.Time, error) { return `"v1"`, time.Time{}, nil }
	markers := []struct {
		name string
		mw   func(http.Handler) http.Handler
	}{
		{"ratelimit.Limit", ratelimit.Limit("10/s", 5)},
		{"idempotency.Required", idempotency.Required()},
		{"idempotency.Optional", idempotency.Optional()},
		{"conditional.ETags", conditional.ETags()},
		{"conditional.Match", conditional.Match(current)},
		{"conditional.Require", conditional.Require(current)},
		{"responsecache.Cached", responsecache.Cached()},
		{"responsecache.Shared", responsecache.Shared()},
	}
	for _, m := range markers {
		t.Run(m.name, func(t *testing.T) {
			want := "route POST /orders has " + m.name + " outside authn.Require"
			refused := map[string]func() http.Handler{
				"chi With": func() http.Handler {
					r := chi.NewRouter()
					r.With(m.mw, authn.Require("orders:write")).Post("/orders", ok)
					return r
				},
				"chi Use on a group": func() http.Handler {
					r := chi.NewRouter()
					r.Group(func(r chi.Router) {
						r.Use(m.mw)
						r.With(authn.Require()).Post("/orders", ok)
					})
					return r
				},
				"ServeMux": func() http.Handler {
					mux := authn.NewServeMux()
					mux.Handle("POST /orders", m.mw(authn.Require("orders:write")(okH())))
					return mux
				},
			}
			for name, build := range refused {
				g, err := authn.New(newFake())
				if err != nil {
					t.Fatal(err)
				}
				_, err = g.Handler(build())
				if !isInstallError(err) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "put authn.Require first") {
					t.Errorf("%s: err = %v, want an install error containing %q", name, err, want)
				}
			}

			// Inside authn.Require, and on routes without it, it is fine.
			r := chi.NewRouter()
			r.With(authn.Require("orders:write"), m.mw).Post("/orders", ok)
			r.With(m.mw).Post("/open", ok)
			r.Group(func(r chi.Router) {
				r.Use(authn.Require())
				r.With(m.mw).Post("/grouped", ok)
			})
			mux := authn.NewServeMux()
			mux.Handle("POST /orders", authn.Require("orders:write")(m.mw(okH())))
			for name, h := range map[string]http.Handler{"chi": r, "ServeMux": mux} {
				g, err := authn.New(newFake())
				if err != nil {
					t.Fatal(err)
				}
				if _, err := g.Handler(h); err != nil {
					t.Errorf("%s, marker inside authn.Require: %v", name, err)
				}
			}
		})
	}
}
