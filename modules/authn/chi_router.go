package authn

import (
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"
)

// NewChiRouter returns chi.NewRouter() that also refuses a route registered
// twice: a second registration of one method and pattern panics naming both
// (where and how each is guarded), as [ServeMux] does. Plain chi replaces
// the first route with the second without a trace (its routes then hold only
// the second, so the gate and `check` see the second guard alone). Patterns
// are compared as chi's tree compares them: "/users/{id}" and "/users/{uid}"
// are one route, "{id:[0-9]+}" and "{id}" two.
//
// Handle without a method counts as every method, so it and a route of one
// method on its pattern are refused. A Mount (and a Route) is every method
// on pattern/* and on the mount's path (pattern, pattern/): a route there
// before it is refused, and a route there after it is refused where the
// mounted chi router answers that method at its "/" (another handler's
// answer there cannot be known, so it is not refused).
//
// It is a chi.Router in every other way: With, Group and Route return
// routers that check too (a Route's sub-router checks its own routes, which
// chi keeps apart), and serving it is serving the chi router it wraps. Mount
// it on a router of NewChiRouter, or build it with Route: a plain chi router
// passes its NotFound and MethodNotAllowed handlers on only to a *chi.Mux.
func NewChiRouter() chi.Router {
	return &chiRouter{Router: chi.NewRouter(), seen: &chiRegistrations{}}
}

// chiRouter records each route registered through it before chi registers
// it.
type chiRouter struct {
	chi.Router                   // the chi router routes land on
	seen       *chiRegistrations // shared by every router on one chi route tree
	prefix     string            // where a Route's sub-router is mounted, for refusals
	above      chi.Middlewares   // middlewares of enclosing routers that Middlewares does not list
	inline     bool              // made by With or Group: Middlewares lists the inline chain
}

// ChiRouter is the router serving c stands for, so that svc dispatches to
// chi directly (internal/chihead).
func (c *chiRouter) ChiRouter() chi.Router { return c.Router }

// applied are the middlewares chi runs around a route registered on c,
// outermost first.
func (c *chiRouter) applied() chi.Middlewares {
	return append(slices.Clip(c.above), c.Router.Middlewares()...)
}

// With returns an inline router with middlewares added that checks its
// routes with c's.
func (c *chiRouter) With(middlewares ...func(http.Handler) http.Handler) chi.Router {
	above := c.above
	if !c.inline {
		above = c.applied()
	}
	return &chiRouter{Router: c.Router.With(middlewares...), seen: c.seen, prefix: c.prefix, above: above, inline: true}
}

// Group runs fn on an inline router that checks its routes with c's.
func (c *chiRouter) Group(fn func(r chi.Router)) chi.Router {
	im := c.With()
	if fn != nil {
		fn(im)
	}
	return im
}

// Route mounts a new checking sub-router at pattern after fn registers its
// routes on it.
func (c *chiRouter) Route(pattern string, fn func(r chi.Router)) chi.Router {
	if fn == nil {
		return c.Router.Route(pattern, nil) // chi's own refusal, naming pattern
	}
	sub := &chiRouter{Router: chi.NewRouter(), seen: &chiRegistrations{},
		prefix: strings.TrimSuffix(c.prefix, "/") + pattern, above: c.applied()}
	fn(sub)
	c.mount(pattern, sub)
	return sub
}

// Mount mounts h at pattern as chi does, once (see [NewChiRouter]). A router
// of NewChiRouter is mounted as the chi router it wraps, so that chi passes
// on its NotFound and MethodNotAllowed handlers as to any chi sub-router.
func (c *chiRouter) Mount(pattern string, h http.Handler) { c.mount(pattern, h) }

func (c *chiRouter) mount(pattern string, h http.Handler) {
	if sub, ok := h.(*chiRouter); ok {
		h = sub.Router
	}
	patterns := []string{pattern + "*"}
	if !strings.HasSuffix(pattern, "/") {
		patterns = []string{pattern, pattern + "/", pattern + "/*"}
	}
	c.add("", patterns, true, h, func() { c.Router.Mount(pattern, h) })
}

// Handle registers h for pattern ("METHOD /path", or "/path" for every
// method), as chi does, once.
func (c *chiRouter) Handle(pattern string, h http.Handler) { c.handle(pattern, h) }

// HandleFunc registers h for pattern; see [chiRouter.Handle].
func (c *chiRouter) HandleFunc(pattern string, h http.HandlerFunc) { c.handle(pattern, h) }

func (c *chiRouter) handle(pattern string, h http.Handler) {
	if i := strings.IndexAny(pattern, " \t"); i >= 0 {
		c.method(pattern[:i], strings.TrimLeft(pattern[i+1:], " \t"), h)
		return
	}
	c.add("", []string{pattern}, false, h, func() { c.Router.Handle(pattern, h) })
}

func (c *chiRouter) method(method, pattern string, h http.Handler) {
	c.add(method, []string{pattern}, false, h, func() { c.Router.Method(method, pattern, h) })
}

// Method and MethodFunc register h for method on pattern p, once.
func (c *chiRouter) Method(method, p string, h http.Handler)         { c.method(method, p, h) }
func (c *chiRouter) MethodFunc(method, p string, h http.HandlerFunc) { c.method(method, p, h) }

// Connect, Delete, Get, Head, Options, Patch, Post, Put, Query and Trace
// register h for their method on pattern p, once.
func (c *chiRouter) Connect(p string, h http.HandlerFunc) { c.method(http.MethodConnect, p, h) }
func (c *chiRouter) Delete(p string, h http.HandlerFunc)  { c.method(http.MethodDelete, p, h) }
func (c *chiRouter) Get(p string, h http.HandlerFunc)     { c.method(http.MethodGet, p, h) }
func (c *chiRouter) Head(p string, h http.HandlerFunc)    { c.method(http.MethodHead, p, h) }
func (c *chiRouter) Options(p string, h http.HandlerFunc) { c.method(http.MethodOptions, p, h) }
func (c *chiRouter) Patch(p string, h http.HandlerFunc)   { c.method(http.MethodPatch, p, h) }
func (c *chiRouter) Post(p string, h http.HandlerFunc)    { c.method(http.MethodPost, p, h) }
func (c *chiRouter) Put(p string, h http.HandlerFunc)     { c.method(http.MethodPut, p, h) }
func (c *chiRouter) Query(p string, h http.HandlerFunc)   { c.method("QUERY", p, h) }
func (c *chiRouter) Trace(p string, h http.HandlerFunc)   { c.method(http.MethodTrace, p, h) }
