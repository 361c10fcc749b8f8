package authn

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"
	"go.uber.org/zap"

	"github.com/svckit/svc/internal/chihead"
	"github.com/svckit/svc/internal/reqfacts"
	"github.com/svckit/svc/internal/scopetoken"
)

// installError is a route set-up the gate refuses. It names the route.
type installError struct {
	Method  string
	Pattern string
	Problem string
}

func (e *installError) Error() string {
	return fmt.Sprintf("authn: route %s %s %s", e.Method, e.Pattern, e.Problem)
}

// Handler puts the gate in front of router. For a chi router it reads every
// route, following mounts, and refuses (with an error naming the
// route) a route that is both Anonymous and Require'd, an excluded route
// that requires scopes, and a route at the protected-resource metadata
// path. It then finds each request's route before dispatch, so a request
// without a token reaches only anonymous routes, and an unknown URL, a
// method no route serves and a redirect all get the same 401. Routes added
// later are read before the next request that reaches them. A HEAD on a
// path with a GET route and no HEAD route is judged by the GET route's
// guard and dispatched to it (chi alone would answer 405).
//
// For a net/http ServeMux (Go 1.22+ patterns) it asks the mux, before
// dispatch, which handler and pattern a request goes to, and reads the
// markers wrapping that handler: Anonymous on one method keeps the others
// authenticated, the mux's own 404 and 405 get the same 401, a mounted
// sub-handler is one route, and a handler registered later is gated as it
// lands. The mux sends a HEAD to a GET pattern itself, and the gate reads
// that pattern's markers. A [ServeMux] remembers its patterns, so the gate refuses
// the same set-ups as on chi when installed; a plain *http.ServeMux cannot
// list them, so a route the gate would refuse is logged and served as
// protected when a request reaches it.
//
// Any other handler is gated knowing no routes: public paths through
// Exclude alone.
func (g *Gate) Handler(router http.Handler) (http.Handler, error) {
	switch mux := router.(type) {
	case chihead.Mux:
		router := chihead.Wrap(mux)
		routes := &chiRoutes{gate: g, mux: router.Mux}
		if err := routes.load(true); err != nil {
			return nil, err
		}
		return g.wrap(router, routes), nil
	case handlerFinder:
		routes, err := newServeMuxRoutes(g, mux)
		if err != nil {
			return nil, err
		}
		return g.wrap(router, routes), nil
	}
	return g.wrap(router, nil), nil
}

// chiRoutes is the gate's view of a chi router's routes.
type chiRoutes struct {
	gate *Gate
	mux  chi.Routes

	mu        sync.RWMutex
	table     map[string]guard // "METHOD pattern"
	anonymous bool             // some route is anonymous
}

func (c *chiRoutes) hasAnonymous() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.anonymous
}

// find reads the guard of the route chi dispatches r to: for a HEAD that
// only a GET route answers, the GET route's, as the router then serves it
// (chihead).
func (c *chiRoutes) find(r *http.Request) (string, guard, bool) {
	pattern, method := reqfacts.ChiRoute(c.mux, r)
	if pattern == "" {
		return "", guard{}, false
	}
	key := method + " " + pattern
	c.mu.RLock()
	gd, ok := c.table[key]
	c.mu.RUnlock()
	if !ok {
		// A route added after install: read the routes again. A route
		// refused, or that chi finds but does not list, is protected, and
		// remembered so that the next request does not read them again.
		if err := c.load(false); err != nil {
			c.gate.refusedAfterInstall(err)
		}
		c.mu.Lock()
		if gd, ok = c.table[key]; !ok {
			c.table[key] = guard{}
		}
		c.mu.Unlock()
	}
	return pattern, gd, true
}

// load reads the routes into the table. At install (strict) the first
// route refused is the error; later, a refused route is left protected,
// the others are read, and every refusal is in the error.
func (c *chiRoutes) load(strict bool) error {
	table := map[string]guard{}
	anonymous := false
	var refused []error
	err := chi.Walk(c.mux, func(method, pattern string, h http.Handler, mws ...func(http.Handler) http.Handler) error {
		pattern = reqfacts.WalkedRoute(pattern)
		key := method + " " + pattern
		gd := guardOf(h, mws)
		err := c.gate.validateRoute(method, pattern, gd)
		if first, twice := table[key]; twice && err == nil {
			// Two routers on one path (a router and one mounted on it, or
			// two mounts): chi serves one, and the gate would judge by one.
			err = &installError{method, pattern, fmt.Sprintf("is listed twice by chi, by two routers on one path (a router and a router mounted on it, or two mounts; guarded %s, then %s); chi serves only one: register it once",
				guardWordsOf(first), guardWordsOf(gd))}
		}
		switch {
		case err != nil && strict:
			return err
		case err != nil:
			refused = append(refused, err)
			gd = guard{}
		}
		table[key] = gd
		anonymous = anonymous || gd.anonymous
		return nil
	})
	if err != nil {
		return err
	}
	// chi finds a sub-router's "/" route at the mount's path without the
	// slash ("/reports" for "/reports/") as well; a route of that path of
	// its own comes first.
	aliases := map[string]guard{}
	for key, gd := range table {
		if alias := strings.TrimSuffix(key, "/"); alias != key && !strings.HasSuffix(alias, " ") {
			if _, own := table[alias]; !own {
				aliases[alias] = gd
			}
		}
	}
	maps.Copy(table, aliases)
	c.mu.Lock()
	c.table, c.anonymous = table, anonymous
	c.mu.Unlock()
	return errors.Join(refused...)
}

// refusedAfterInstall logs a route set-up refused once the gate serves:
// the route cannot be refused any more, so it is served as protected.
func (g *Gate) refusedAfterInstall(err error) {
	g.log.Error("authn: a route added after install is refused; it stays protected", zap.Error(err))
}

// validateRoute refuses the route set-ups that can never be served as
// written (see docs/authn.md, "What is authenticated"): a route both anonymous
// and scoped, an excluded route that requires scopes, a route at the
// metadata path.
func (g *Gate) validateRoute(method, pattern string, gd guard) error {
	switch {
	case gd.anonymous && gd.dpop:
		return &installError{method, pattern, "is Anonymous and also requires DPoP (authn.RequireDPoP): make it one or the other"}
	case gd.anonymous && gd.requires:
		return &installError{method, pattern, "is Anonymous and also requires a caller (authn.Require): make it one or the other"}
	case gd.dpop && g.cfg.dpop == nil:
		return &installError{method, pattern, "requires DPoP (authn.RequireDPoP) but the gate takes no DPoP: give the gate authn.DPoP(verifier, false), or set SVC_AUTHN_DPOP=allowed with fxsvc.Authn"}
	case gd.dpop && g.exclude.matchPattern(pattern):
		return &installError{method, pattern, "is excluded from authentication but requires DPoP (authn.RequireDPoP): remove it from authn.Exclude or drop the marker"}
	case len(gd.scopes) > 0 && g.exclude.matchPattern(pattern):
		return &installError{method, pattern, "is excluded from authentication but requires scopes: remove it from authn.Exclude or drop the scopes"}
	case !gd.step.none() && g.exclude.matchPattern(pattern):
		return &installError{method, pattern, "is excluded from authentication but requires authn.RequireACR or authn.MaxAge: remove it from authn.Exclude or drop them"}
	case g.stepProblem(gd.step) != "":
		return &installError{method, pattern, g.stepProblem(gd.step)}
	case gd.issuers.problem(g.verifier) != "":
		return &installError{method, pattern, gd.issuers.problem(g.verifier)}
	case gd.roleProblem(g.exclude.matchPattern(pattern)) != "":
		return &installError{method, pattern, gd.roleProblem(g.exclude.matchPattern(pattern))}
	case g.meta != nil && pattern == g.meta.path:
		return &installError{method, pattern, "is at the protected-resource metadata path, which the gate answers itself: move the route"}
	case badScope(gd.scopes) != "":
		return &installError{method, pattern, "requires scope " + badScope(gd.scopes) + ", which RFC 6750 cannot name in a challenge: a scope is one or more printable ASCII characters other than space, \" and \\"}
	case gd.outside != "":
		return &installError{method, pattern, "has " + gd.outside + " outside authn.Require, so it would run for a caller the route then refuses 403: put authn.Require first (outer)"}
	}
	return nil
}

// badScope returns, quoted, the first scope that is not an RFC 6750 §3
// scope-token (1*( %x21 / %x23-5B / %x5D-7E )); "" when all are. Such a
// scope could not be written into scope="…" of the 403 challenge, and no
// token could grant it: the route would refuse every caller.
func badScope(scopes []string) string {
	for _, s := range scopes {
		if !scopetoken.Valid(s) {
			return strconv.Quote(s)
		}
	}
	return ""
}
