// Package chihead serves a chi router so that it answers HEAD as GET on
// a path that has a GET route and no HEAD route (RFC 9110 §9.3.2: HEAD is
// GET without the body), as chi's middleware.GetHead does from inside a
// router. It works from outside: the gate finds a request's route before
// dispatch, and the router must then serve the route the gate judged, so
// both ask reqfacts.ChiRoute.
package chihead

import (
	"context"
	"net/http"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/reqfacts"
)

// dispatch is a route context the Router makes for chi, with the State's
// value naming it, set once so that a goroutine still reading the State after the dispatch reads
// nothing the next request writes but the route context itself, as with
// chi's own pool.
type dispatch struct {
	rctx  chi.Context
	value reqfacts.RouterValue
}

var dispatches = sync.Pool{New: func() any {
	d := &dispatch{}
	d.value = reqfacts.RouterValue{Key: chi.RouteCtxKey, Val: &d.rctx}
	return d
}}

// Mux is a chi router: its routes, and the handler that dispatches them.
type Mux interface {
	chi.Routes
	http.Handler
}

// Router is a chi router that answers HEAD as [Find] finds it: a HEAD on a
// path with a GET route and no HEAD route is dispatched to the GET route
// (its handler sees the method HEAD; net/http sends no body). It is still
// the router's chi.Routes, so that chi.Walk and the gate read through it.
type Router struct{ Mux }

// Wrap returns mux as a [Router]; a Router as it is, so that the rule is
// applied once however many layers ask for it. A router that only checks
// registrations (authn.NewChiRouter) is served as the chi router it wraps,
// so that its requests take the pooled route context too.
func Wrap(mux Mux) *Router {
	switch m := mux.(type) {
	case *Router:
		return m
	case registrar:
		return &Router{m.ChiRouter()}
	}
	return &Router{mux}
}

// registrar is a chi router that adds to registering routes, not to
// serving them.
type registrar interface{ ChiRouter() chi.Router }

// ServeHTTP dispatches r; a HEAD that only a GET route answers goes to it.
//
// Behind svc's telemetry wrapper the route context chi would make is taken
// here from a pool, and the request's State answers it for the dispatch:
// chi, finding one, makes no request copy and no context node of its own
// (two allocations and 368 bytes a request).
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	_, isChi := rt.Mux.(*chi.Mux)
	var st *reqfacts.State
	if isChi {
		st = reqfacts.From(ctx)
	}
	// A route context already there is a parent chi router's, which chose
	// the route (and its method) itself.
	if (st == nil && r.Method != http.MethodHead) || chi.RouteContext(ctx) != nil {
		rt.Mux.ServeHTTP(w, r)
		return
	}
	head := false
	if r.Method == http.MethodHead {
		_, method := reqfacts.ChiRoute(rt.Mux, r)
		head = method == http.MethodGet
	}
	if st != nil {
		d := dispatches.Get().(*dispatch)
		d.rctx.Reset()
		d.rctx.Routes = rt.Mux
		if head {
			d.rctx.RouteMethod = http.MethodGet
		}
		st.SetRouterValue(&d.value)
		served := false
		defer func() {
			// Cleared on a panic too, and before the route context goes
			// back to the pool: what wraps the router must not find one
			// another request may be using.
			st.SetRouterValue(nil)
			if served {
				dispatches.Put(d)
			}
		}()
		rt.Mux.ServeHTTP(w, r)
		served = true
		return
	}
	if head {
		rctx := chi.NewRouteContext()
		rctx.Routes = rt.Mux
		rctx.RouteMethod = http.MethodGet
		r = r.WithContext(context.WithValue(ctx, chi.RouteCtxKey, rctx))
	}
	rt.Mux.ServeHTTP(w, r)
}
