package authn

import (
	"net/http"
	"slices"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// marker is what Require and Anonymous wrap a route's handler in. The gate
// recognises it when it reads the routes, so the markers are both the
// declaration (read before routing) and the enforcement (run at dispatch).
type marker struct {
	next      http.Handler
	anonymous bool
	requires  bool
	scopes    []string
	step      stepUp // RequireACR, MaxAge
	dpop      bool   // RequireDPoP
	// issuers is RequireIssuer's rule, nil for none.
	issuers *issuerRule
	roles   []string // RequireRole (non-nil for it)
}

// Require is a marker middleware: the routes it guards need an
// authenticated caller holding every named scope. Without scopes it only
// requires a caller (which every route not marked Anonymous does anyway).
// A caller lacking a scope gets 403 insufficient-scope, never 401 (unless
// the route's [RequireACR] or [MaxAge] refuse it too: then 401, naming the
// scopes). Use it with chi's r.With, r.Use, r.Group and r.Route; a
// router's marker and its route's marker each apply.
func Require(scopes ...string) func(http.Handler) http.Handler {
	scopes = slices.Clone(scopes)
	return func(next http.Handler) http.Handler {
		return &marker{next: next, requires: true, scopes: scopes}
	}
}

// Anonymous is a marker middleware: the credential is optional on the
// routes it guards. A request without a token is served as a caller that is
// not authenticated; a token that is sent is still verified (a bad one gets
// 401). It is read from the route the router dispatches to, per method, so
// it never opens another route. A route that is both Anonymous and
// Require'd is refused at install.
func Anonymous(next http.Handler) http.Handler {
	return &marker{next: next, anonymous: true}
}

func (m *marker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if m.anonymous {
		m.next.ServeHTTP(w, r)
		return
	}
	gc := gateFrom(r.Context())
	p, ok := PrincipalFrom(r.Context())
	if !ok {
		// Reached without a verified caller: an excluded path, or a stack
		// without the gate. A route that requires a caller refuses.
		refuseAtRoute(gc, w, r, &Refusal{Kind: KindAuthenticationRequired, Scopes: routeScopes(gc, r, m.scopes)}, false)
		return
	}
	if m.dpop && (gc == nil || !gc.viaDPoP) {
		// Authentication before authorization: the token must come
		// another way before its scopes count.
		refuseAtRoute(gc, w, r, dpopRequiredRefusal(gc), false)
		return
	}
	if !m.issuers.admits(p) {
		refuseIssuer(gc, w, r)
		return
	}
	if !p.Scopes.Has(m.scopes...) || !stepUpMet(gc, m.step, p) {
		m.refuseGuarded(gc, w, r, p)
		return
	}
	if !p.Roles.Has(m.roles...) {
		m.refuseRole(gc, w, r, p)
		return
	}
	m.next.ServeHTTP(w, r)
}

// routeScopes are every scope the route requires, its router's included,
// so that the challenge names what a token needs here (RFC 6750 §3: "the
// scope necessary to access the protected resource"): a client that asked
// for the failing marker's scopes alone would meet the next marker. Without
// a route the gate can read, or when it reads one that does not hold own,
// own is named.
func routeScopes(gc *gateCtx, r *http.Request, own []string) []string {
	if gc == nil || gc.routes == nil {
		return own
	}
	_, gd, found := gc.routes.find(r)
	if !found {
		return own
	}
	for _, s := range own {
		if !slices.Contains(gd.scopes, s) {
			return own
		}
	}
	return gd.scopes
}

// WrappedHandler lets `check` read the markers of the components behind
// the gate inside this one (on a ServeMux, a route's markers are nested
// handlers, Require or Anonymous outermost).
func (m *marker) WrappedHandler() http.Handler { return m.next }

// refuseAtRoute refuses from a route's marker: recorded like the gate's own
// refusals (a missing scope as an authorization refusal) when the gate is
// in front, rendered in the registered format either way.
func refuseAtRoute(gc *gateCtx, w http.ResponseWriter, r *http.Request, ref *Refusal, authz bool) {
	if gc == nil {
		svcerrors.Refuse(w, r, ref)
		return
	}
	if gc.excluded {
		gc.g.refuse(w, r, ref)
		return
	}
	q := gateRequest{g: gc.g, r: r, routes: gc.routes}
	gc.g.observeRefusal(r, refusalRecord{ref: ref, route: q.route(), addr: q.address(),
		noCreds: len(r.Header["Authorization"]) == 0, authz: authz, issuer: gc.issuer})
	gc.g.refuse(w, r, ref)
}

// guard is how a route is protected, read from its markers.
type guard struct {
	anonymous bool
	requires  bool
	scopes    []string
	step      stepUp // every RequireACR and MaxAge of the route
	dpop      bool   // RequireDPoP
	// issuers are what every RequireIssuer of the route accepts.
	issuers *issuerRule
	roles   []string // every RequireRole of the route
	// outside names a component marker (rate limit, idempotency,
	// conditional request, response cache) that wraps an authn.Require
	// marker: it would run before the scope check.
	outside string
}

// behindMarker is a marker of a component that must run behind the
// route's authorization (modules/ratelimit, idempotency, conditional,
// responsecache): it names itself and wraps the route's handler.
type behindMarker interface {
	BehindGate() string
	WrappedHandler() http.Handler
}

func (gd guard) mode() string {
	if gd.anonymous {
		return "anonymous"
	}
	return "authenticated"
}

// probe is the handler markers are applied to while reading a route: any
// middleware applied to it returns either a marker or something opaque.
var probe = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})

// guardOf reads the markers among a route's middlewares and in its handler
// chain, outermost first, through the markers of the components behind
// the gate.
func guardOf(h http.Handler, mws []func(http.Handler) http.Handler) guard {
	var gd guard
	seen := "" // the first component marker met so far
	add := func(m *marker) {
		gd.anonymous = gd.anonymous || m.anonymous
		gd.dpop = gd.dpop || m.dpop
		if m.requires {
			if seen != "" && gd.outside == "" {
				gd.outside = seen
			}
			gd.requires = true
			gd.step = gd.step.and(m.step)
			gd.issuers = gd.issuers.and(m.issuers)
			gd.addRoles(m.roles)
			for _, s := range m.scopes {
				if !slices.Contains(gd.scopes, s) {
					gd.scopes = append(gd.scopes, s)
				}
			}
		}
	}
	// walk follows one chain of markers: a middleware applied to probe,
	// or the route's handler.
	walk := func(x http.Handler) {
		for depth := 0; x != nil && depth < 32; depth++ {
			switch m := x.(type) {
			case *marker:
				add(m)
				x = m.next
			case behindMarker:
				if seen == "" {
					seen = m.BehindGate()
				}
				x = m.WrappedHandler()
			default:
				return
			}
		}
	}
	for _, mw := range mws {
		if mw != nil {
			walk(mw(probe))
		}
	}
	walk(h)
	return gd
}
