package authnhuma_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/conditional"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/responsecache"
	"github.com/svckit/svc/modules/store"
	"github.com/svckit/svc/svctest/checktest"
)

// shop registers operations through three groups, one with a prefix, one
// inside it and one without a prefix, whose markers come from
// authnhuma.Group, beside one operation outside them.
func shop(api huma.API) {
	h := func(context.Context, *struct{}) (*statusOut, error) {
		return &statusOut{Status: http.StatusNoContent}, nil
	}
	orders := huma.NewGroup(api, "/orders")
	orders.UseSimpleModifier(authnhuma.Require("write"))
	authnhuma.Group(orders, ratelimit.Limit("10/s", 20), idempotency.Optional())
	huma.Get(orders, "/{id}", h)
	huma.Put(orders, "/{id}", h, authnhuma.Use(conditional.ETags()))
	archive := huma.NewGroup(orders, "/archive")
	authnhuma.Group(archive, responsecache.Shared())
	huma.Get(archive, "/{id}", h)
	feeds := huma.NewGroup(api)
	authnhuma.Group(feeds, responsecache.Shared())
	huma.Get(feeds, "/feed", h)
	huma.Get(api, "/plain", h)
}

// `check` lists a group's markers on each operation of the group, once
// (Huma runs a group's modifiers twice), after the operation's own, and on
// no operation outside it.
func TestCheckListsTheGroupMarkersOnEachOperation(t *testing.T) {
	want := map[string]string{
		"GET /orders/{id}":         "authenticated write idempotency=optional ratelimit=10/s burst 20",
		"PUT /orders/{id}":         "authenticated write conditional=etags idempotency=optional ratelimit=10/s burst 20",
		"GET /orders/archive/{id}": "authenticated write cache=shared idempotency=optional ratelimit=10/s burst 20",
		"GET /feed":                "authenticated cache=shared",
		"GET /plain":               "authenticated",
	}
	apps := checktest.HumaApps(shop)
	for _, name := range []string{"Huma on chi", "Huma on ServeMux"} {
		t.Run(name, func(t *testing.T) {
			got, out := checktest.Check(t, apps[name])
			for route, w := range want {
				if got[route] != w {
					t.Errorf("%s: %q, want %q\n%s", route, got[route], w, out)
				}
			}
		})
	}
}

// authnhuma.Use as a group's modifier would be documented and never run
// (huma#804): registering through such a group panics, naming
// authnhuma.Group, on every adapter, with or without a prefix, through
// UseSimpleModifier or UseModifier. Use given to an operation of a group
// runs.
func TestUseOnAGroupIsRefusedAtRegistration(t *testing.T) {
	h := func(context.Context, *struct{}) (*statusOut, error) {
		return &statusOut{Status: http.StatusNoContent}, nil
	}
	for _, rt := range humaRouters {
		for _, tc := range []struct {
			name string
			put  func(grp *huma.Group, use func(*huma.Operation))
			pre  []string
		}{
			{"UseSimpleModifier", func(grp *huma.Group, use func(*huma.Operation)) { grp.UseSimpleModifier(use) }, []string{"/g"}},
			{"UseSimpleModifier, no prefix", func(grp *huma.Group, use func(*huma.Operation)) { grp.UseSimpleModifier(use) }, nil},
			{"UseModifier", func(grp *huma.Group, use func(*huma.Operation)) {
				grp.UseModifier(func(op *huma.Operation, next func(*huma.Operation)) { use(op); next(op) })
			}, []string{"/g"}},
		} {
			t.Run(rt.name+"/"+tc.name, func(t *testing.T) {
				_, api := rt.new()
				grp := huma.NewGroup(api, tc.pre...)
				tc.put(grp, authnhuma.Use(ratelimit.Limit("1/h", 1)))
				defer func() {
					msg, _ := recover().(string)
					if !strings.Contains(msg, "authnhuma.Group(grp, markers...)") || !strings.Contains(msg, "huma#804") {
						t.Fatalf("panic %q, want one naming authnhuma.Group and huma#804", msg)
					}
				}()
				huma.Get(grp, "/x", h)
			})
		}
		t.Run(rt.name+"/on an operation of a group", func(t *testing.T) {
			router, api := rt.new()
			var runs atomic.Int64
			grp := huma.NewGroup(api, "/g")
			huma.Get(grp, "/x", counted(&runs, http.StatusNoContent), authnhuma.Use(ratelimit.Limit("1/h", 1, ratelimit.Name("op"))))
			srv := behindtest.Stack(t, router, components(t, &countingStore{m: store.NewMemory()})...)
			admitted(t, behindtest.Do(t, srv, "GET", "/g/x", behindtest.Alice, ""), "op", "0")
			limited(t, behindtest.Do(t, srv, "GET", "/g/x", behindtest.Alice, ""))
			if runs.Load() != 1 {
				t.Fatalf("ran %d times", runs.Load())
			}
		})
	}
}

// A group's markers cost the operation nothing it would not pay with the
// same markers given by Use: the same allocations per admitted request.
func TestAGroupAllocatesAsUse(t *testing.T) {
	allocs := func(register func(api huma.API, h func(context.Context, *struct{}) (*statusOut, error))) float64 {
		r := chi.NewRouter()
		api := humachi.New(r, huma.DefaultConfig("Shop", "1.0.0"))
		var runs atomic.Int64
		register(api, counted(&runs, http.StatusNoContent))
		req, _ := http.NewRequest("GET", "/g/x", nil)
		req = authntest.WithPrincipal(req, bearer.Principal{Subject: "alice", Issuer: behindtest.Issuer,
			Scopes: bearer.NewScopes("write"), Authenticated: true})
		w := &discard{h: http.Header{}}
		return testing.AllocsPerRun(200, func() { r.ServeHTTP(w, req) })
	}
	noop := func(next http.Handler) http.Handler { return next }
	perOp := allocs(func(api huma.API, h func(context.Context, *struct{}) (*statusOut, error)) {
		huma.Get(api, "/g/x", h, authnhuma.Require("write"), authnhuma.Use(noop))
	})
	group := allocs(func(api huma.API, h func(context.Context, *struct{}) (*statusOut, error)) {
		grp := huma.NewGroup(api, "/g")
		authnhuma.Group(grp, noop)
		huma.Get(grp, "/x", h, authnhuma.Require("write"))
	})
	if group != perOp {
		t.Fatalf("an admitted request allocates %v through a group, %v through Use", group, perOp)
	}
}

type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// document_idempotency on a group: each of the group's operations lists
// its markers' refusals where they apply, in the registered error model,
// once.
func TestTheDocumentListsAGroupsRefusals(t *testing.T) {
	for _, rt := range humaRouters[:2] {
		t.Run(rt.name, func(t *testing.T) {
			router, api := rt.new()
			shop(api)
			srv := behindtest.Stack(t, router)
			var doc apiDoc
			if err := json.Unmarshal([]byte(behindtest.Body(t, behindtest.Do(t, srv, "GET", "/openapi.json", behindtest.Alice, ""))), &doc); err != nil {
				t.Fatal(err)
			}
			// The idempotency marker lets a GET through untouched: its
			// refusals are a write's alone.
			for method, codes := range map[string][]string{"get": {"429"}, "put": {"400", "409", "413", "422", "429"}} {
				op := doc.Paths["/orders/{id}"][method]
				for _, code := range codes {
					if r, ok := op.Responses[code]; !ok || r.Content["application/problem+json"].Schema.Ref == "" {
						t.Errorf("%s /orders/{id} %s: %+v", method, code, r)
					}
				}
			}
			for _, code := range []string{"400", "409", "413", "422"} {
				if _, ok := doc.Paths["/orders/{id}"]["get"].Responses[code]; ok {
					t.Errorf("GET /orders/{id} lists a %s only a write answers", code)
				}
			}
			if _, ok := doc.Paths["/plain"]["get"].Responses["429"]; ok {
				t.Errorf("GET /plain lists a 429 it never answers")
			}
		})
	}
}
