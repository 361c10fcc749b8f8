package fxsvc_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/conditional"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/responsecache"
	"github.com/svckit/svc/svctest/checktest"
)

type markers = []func(http.Handler) http.Handler

func current(*http.Request) (string, time.Time, error) { return `"v1"`, time.Time{}, nil }

// noteRoutes are one shop's routes with the markers of the four
// components behind the gate, and the notes `check` prints for them. The
// markers are built per app: a marker is a value of the route it is on.
var noteRoutes = []struct {
	method, path string
	anonymous    bool
	markers      func() markers
	want         string
}{
	{"POST", "/orders", false, func() markers { return markers{ratelimit.Limit("10/s", 20), idempotency.Required()} },
		"idempotency=required ratelimit=10/s burst 20"},
	{"GET", "/orders/{id}", false, func() markers { return markers{conditional.ETags()} }, "conditional=etags"},
	{"PUT", "/orders/{id}", false, func() markers { return markers{conditional.Require(current)} }, "conditional=require"},
	{"DELETE", "/orders/{id}", false, func() markers { return markers{idempotency.Optional(), conditional.Match(current)} },
		"conditional=match idempotency=optional"},
	{"GET", "/catalog", true, func() markers { return markers{ratelimit.Limit("5/s", 10), responsecache.Cached()} },
		"cache=anonymous ratelimit=5/s burst 10"},
	{"GET", "/feed", false, func() markers { return markers{responsecache.Shared()} }, "cache=shared"},
	{"GET", "/plain", false, func() markers { return nil }, ""},
	{"GET", "/status", true, func() markers { return nil }, ""},
}

func ok(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }

func onChi() *chi.Mux {
	r := chi.NewRouter()
	for _, rt := range noteRoutes {
		mws := rt.markers()
		if rt.anonymous {
			mws = append(markers{authn.Anonymous}, mws...)
		}
		r.With(mws...).MethodFunc(rt.method, rt.path, ok)
	}
	return r
}

func onServeMux() *authn.ServeMux {
	mux := authn.NewServeMux()
	wrap := func(mws markers) http.Handler {
		var h http.Handler = http.HandlerFunc(ok)
		for i := len(mws) - 1; i >= 0; i-- {
			h = mws[i](h)
		}
		return h
	}
	for _, rt := range noteRoutes {
		mws := rt.markers()
		if rt.anonymous {
			mws = append(markers{authn.Anonymous}, mws...)
		}
		mux.Handle(rt.method+" "+rt.path, wrap(mws))
	}
	return mux
}

// humaOperations registers the shop's routes as Huma operations, their
// markers through authnhuma.Use.
func humaOperations(api huma.API) {
	type out struct{ Status int }
	handler := func(context.Context, *struct{}) (*out, error) { return &out{Status: http.StatusNoContent}, nil }
	for _, rt := range noteRoutes {
		op := huma.Operation{Method: rt.method, Path: rt.path}
		if rt.anonymous {
			authnhuma.Anonymous(&op)
		}
		if mws := rt.markers(); mws != nil {
			authnhuma.Use(mws...)(&op)
		}
		huma.Register(api, op, handler)
	}
}

// The notes `check` prints for a route come from its markers, whichever
// way they were put on it: on chi and ServeMux routes, and on Huma
// operations (authnhuma.Use) served by either. Each of the four apps prints the same notes, in the same order,
// on the same routes, and none on a route without markers (among them
// Huma's documentation routes).
func TestCheckNotesTheComponentsOnEveryRouter(t *testing.T) {
	want := map[string]string{}
	for _, rt := range noteRoutes {
		mode := "authenticated"
		if rt.anonymous {
			mode = "anonymous"
		}
		want[rt.method+" "+rt.path] = strings.TrimSpace(mode + " " + rt.want)
	}
	apps := checktest.HumaApps(humaOperations)
	apps["chi"] = fx.Provide(onChi)
	apps["ServeMux"] = fx.Options(fx.Provide(onServeMux), fxsvc.ServeMux())
	for name, app := range apps {
		t.Run(name, func(t *testing.T) {
			routes, out := checktest.Check(t, app)
			seen := 0
			for route, rest := range routes {
				w, listed := want[route]
				switch {
				case listed && rest != w:
					t.Errorf("%s: %q, want %q", route, rest, w)
				case !listed && strings.Contains(rest, "="):
					t.Errorf("%s has no markers, but check notes %q", route, rest)
				}
				if listed {
					seen++
				}
			}
			if seen != len(want) {
				t.Fatalf("check listed %d of the %d routes:\n%s", seen, len(want), out)
			}
		})
	}
}
