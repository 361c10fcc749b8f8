// Package behind holds what the components that run behind the
// authentication gate share: the paths they apply to (named from the app's
// root, also under a mount), who the caller is (issuer and subject, else
// the client address reqfacts names), where their refusals
// are rendered, and how `check` reads their route markers.
package behind

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/reqfacts"

	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// rootKey keeps the request path as the app's root saw it: a mount such as
// http.StripPrefix rewrites r.URL.Path before the route's markers run.
// It is kept escaped, as the client sent it: decoded, "/a%2Fb" and "/a/b"
// would be one path although a router serves them from different routes.
type rootKey struct{}

// With returns r carrying a component (val under key) and the path the
// app's root saw, unless an outer component recorded it already. One
// context holds both, so a component costs one context and one request
// copy per request.
func With(r *http.Request, key, val any) *http.Request {
	root := r.URL.EscapedPath()
	if p, ok := r.Context().Value(rootKey{}).(*string); ok {
		root = *p
	}
	return r.WithContext(&scoped{Context: r.Context(), root: root, key: key, val: val})
}

type scoped struct {
	context.Context
	root     string
	key, val any
}

func (c *scoped) Value(k any) any {
	switch k {
	case rootKey{}:
		// A pointer into the context: boxing the string would allocate
		// on every lookup.
		return &c.root
	case c.key:
		return c.val
	}
	return c.Context.Value(k)
}

// Root is the request path from the app's root, escaped as the client sent
// it: the one the outermost component recorded (in the request's
// reqfacts.State behind svc's telemetry wrapper, else through [With]),
// else the request's own.
func Root(r *http.Request) string {
	ctx := r.Context()
	if st := reqfacts.From(ctx); st != nil {
		if p, ok := st.Root(); ok {
			return p
		}
	}
	if p, ok := ctx.Value(rootKey{}).(*string); ok {
		return *p
	}
	return r.URL.EscapedPath()
}

// Paths matches request paths against Include and Exclude patterns: an
// exact path, or a prefix ending in /*. No Include means every path.
type Paths struct {
	include, exclude reqfacts.PathSet
}

// NewPaths checks the patterns; errors name the option (for example
// "ratelimit.Include") to fix.
func NewPaths(option string, include, exclude []string) (Paths, error) {
	var p Paths
	var err error
	if p.include, err = newPathSet(option+".Include", include); err != nil {
		return p, err
	}
	p.exclude, err = newPathSet(option+".Exclude", exclude)
	return p, err
}

// Applies reports whether a component applies to the request's path from
// the app's root. Patterns match the decoded path. An exclusion holds only
// when the escaped path matches it too and the path has no "." or ".."
// segment: "/public%2Fx" decodes under "/public/*" but a router serves it
// from a route such as "/{id}", and a handler that cleans paths serves
// "/public/../x" as "/x". Either way the component applies.
func (p Paths) Applies(r *http.Request) bool {
	if p.include.Empty() && p.exclude.Empty() {
		return true
	}
	raw := Root(r)
	path := raw
	if strings.IndexByte(raw, '%') >= 0 {
		if decoded, err := url.PathUnescape(raw); err == nil {
			path = decoded
		}
	}
	if reqfacts.ExclusionHolds(p.exclude.MatchUnder, path, raw) {
		return false
	}
	// The bare form of a prefix ("/public" for "/public/*") holds only
	// where the router sent the request to a route the exclusion covers,
	// as the gate's exclusions do: a router may send "/public" to "/{id}".
	if reqfacts.ExclusionHolds(p.exclude.MatchBare, path, raw) && coversRoute(p.exclude, r) {
		return false
	}
	return p.include.Empty() || p.include.Match(path)
}

func newPathSet(option string, patterns []string) (reqfacts.PathSet, error) {
	var s reqfacts.PathSet
	for _, pat := range patterns {
		switch {
		case pat == "" || pat[0] != '/':
			return s, fmt.Errorf("%s(%q): a path must start with /", option, pat)
		case strings.HasSuffix(pat, "/*"):
			if strings.ContainsAny(strings.TrimSuffix(pat, "*"), "*{}") {
				return s, fmt.Errorf("%s(%q): * may only end the pattern, as /*", option, pat)
			}
			s.Add(pat)
		case strings.ContainsAny(pat, "*{}"):
			return s, fmt.Errorf("%s(%q): use an exact path or a prefix ending in /*", option, pat)
		default:
			s.Add(pat)
		}
	}
	return s, nil
}

// coversRoute reports whether the route r was dispatched to lies under the
// set; false when no route is known, which keeps the component on.
func coversRoute(s reqfacts.PathSet, r *http.Request) bool {
	route, found := reqfacts.Route(r)
	return found && s.CoversTemplate(route)
}

// AnonymousOwner is the Owner of keys of callers known by address or by an
// app's key: no issuer is empty, so these never meet a principal's key.
const AnonymousOwner = ""

// Caller is who a request comes from: the verified caller's issuer and
// subject (authenticated), else "" and the client address the app's
// trusted proxies name (reqfacts.ClientAddress, the gate's too).
func Caller(r *http.Request) (owner, id string, authenticated bool) {
	if p, ok := authn.PrincipalFrom(r.Context()); ok {
		return p.Issuer, p.Subject, true
	}
	return AnonymousOwner, reqfacts.ClientAddress(r), false
}

// Authenticated reports whether the request carries a verified caller.
func Authenticated(r *http.Request) bool {
	_, ok := authn.PrincipalFrom(r.Context())
	return ok
}

// Refuse is svcerrors.Refuse: the components' refusals come before their
// handler read the body, and close the connection of a request that has
// one.
func Refuse(w http.ResponseWriter, r *http.Request, err error) { svcerrors.Refuse(w, r, err) }

// probe is what markers are applied to while `check` reads a route.
var probe = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})

// Wrapping is a marker of one of these components: it wraps the route's
// handler, which `check` reads through it.
type Wrapping interface {
	WrappedHandler() http.Handler
}

// Markers collects the markers of type M among a route's middlewares and
// in its handler chain (through every component's markers).
func Markers[M any](h http.Handler, mws []func(http.Handler) http.Handler) []M {
	var out []M
	walk := func(x http.Handler) {
		for depth := 0; x != nil && depth < 32; depth++ {
			if m, ok := x.(M); ok {
				out = append(out, m)
			}
			w, ok := x.(Wrapping)
			if !ok {
				return
			}
			x = w.WrappedHandler()
		}
	}
	for _, mw := range mws {
		if mw != nil {
			walk(mw(probe))
		}
	}
	walk(h)
	return out
}

// Refuser is a marker that tells which refusals it answers, so that an
// API document can list them (authnhuma.Use).
type Refuser interface {
	Refusals() []svcerrors.Rejection
}

// Unrouted reports whether a marker runs before routing for a request no
// route answers: a marker put on a chi router's root with r.Use runs before
// the router has chosen a route, so it asks the router first. A marker on
// a route (r.With, r.Group, r.Route) always has one.
func Unrouted(r *http.Request) bool {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil || len(rctx.RoutePatterns) > 0 || rctx.Routes == nil {
		return false
	}
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	// A HEAD the router sends to a GET route (chihead) carries that method.
	method := r.Method
	if rctx.RouteMethod != "" {
		method = rctx.RouteMethod
	}
	return !rctx.Routes.Match(chi.NewRouteContext(), method, path)
}
