package authn

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"
)

// NewChiRouter returns chi.NewRouter() that also refuses a route registered
// twice: a second registration of one method and pattern panics naming both
// (where and how each is guarded), as [ServeMux] does. Plain chi replaces
// the first route with the second without a trace (its routes then hold only
// the second, so the gate and `check` see the second guard alone).
//
// It is a chi.Router in every other way: With, Group and Route return
// routers that check too (a Route's sub-router checks its own routes, which
// chi keeps apart), and serving it is serving the chi router it wraps. Handle
// without a method counts as every method: it and a route of one method on
// the same pattern are refused, since chi would serve only one of them for
// that method. A Mount counts as every method on its pattern, pattern/ and
// pattern/*, as chi serves it.
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

// chiRegistrations are the routes registered on one chi route tree, by
// chiRouteKey of their pattern.
type chiRegistrations struct {
	mu     sync.Mutex
	routes map[string][]chiRegistration
}

// chiRegistration is one route as registered: its method ("" for every
// method, chi's Handle), its pattern, where (file:line), and what to read
// its guard from should it be refused.
type chiRegistration struct {
	method, pattern, at string
	h                   http.Handler
	mws                 chi.Middlewares
}

// ChiRouter is the router serving c stands for, so that svc dispatches to
// chi directly (internal/chihead).
func (c *chiRouter) ChiRouter() chi.Router { return c.Router }

// add registers a route through register, after refusing one that
// overlaps a route registered before; the refusal names both. A route chi
// refuses itself (a bad method or pattern) is not remembered. A mount is
// several patterns, each for every method.
func (c *chiRouter) add(method string, patterns []string, h http.Handler, at string, register func()) {
	next := chiRegistration{method: strings.ToUpper(method), at: at, h: h, mws: c.applied()}
	keys := make([]string, len(patterns))
	whole := func(pattern string) string { return strings.TrimSuffix(c.prefix, "/") + pattern }
	c.seen.mu.Lock()
	for i, pattern := range patterns {
		keys[i] = chiRouteKey(pattern)
		for _, first := range c.seen.routes[keys[i]] {
			if first.method == next.method || first.method == "" || next.method == "" {
				c.seen.mu.Unlock()
				name := fmt.Sprintf("%q", cmp.Or(next.method, first.method, "every method of")+" "+whole(pattern))
				if first.pattern != pattern {
					name += fmt.Sprintf(" (first as %q)", whole(first.pattern))
				}
				panic(fmt.Sprintf("authn.NewChiRouter: %s is registered twice: at %s (%s) and at %s (%s); chi would serve only the second: register each route once",
					name, first.at, guardWords(first.h, first.mws), at, guardWords(h, next.mws)))
			}
		}
	}
	c.seen.mu.Unlock()
	register()
	c.seen.mu.Lock()
	defer c.seen.mu.Unlock()
	if c.seen.routes == nil {
		c.seen.routes = map[string][]chiRegistration{}
	}
	for i, key := range keys {
		next.pattern = patterns[i]
		c.seen.routes[key] = append(c.seen.routes[key], next)
	}
}

// chiRouteKey is pattern as chi's route tree tells patterns apart: without
// the names of its parameters ("/users/{id}" and "/users/{uid}" are one
// route, the second replacing the first), with their regular expressions.
func chiRouteKey(pattern string) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(pattern, '{')
		if open < 0 {
			b.WriteString(pattern)
			return b.String()
		}
		b.WriteString(pattern[:open+1])
		pattern = pattern[open+1:]
		depth, end, colon := 1, len(pattern), -1
		for i := 0; i < len(pattern) && end == len(pattern); i++ {
			switch pattern[i] {
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					end = i
				}
			case ':':
				if colon < 0 && depth == 1 {
					colon = i
				}
			}
		}
		if colon >= 0 && colon < end {
			b.WriteString(pattern[colon:end])
		}
		pattern = pattern[end:]
	}
}

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
	c.mount(pattern, sub, callerAt(2))
	return sub
}

// Mount mounts h at pattern as chi does, once: chi serves a mount on
// pattern, pattern/ and pattern/* for every method, so a route registered
// there before or after is refused. A router of NewChiRouter is mounted as
// the chi router it wraps, so that chi passes on its NotFound and
// MethodNotAllowed handlers as to any chi sub-router.
func (c *chiRouter) Mount(pattern string, h http.Handler) { c.mount(pattern, h, callerAt(2)) }

func (c *chiRouter) mount(pattern string, h http.Handler, at string) {
	if sub, ok := h.(*chiRouter); ok {
		h = sub.Router
	}
	patterns := []string{pattern + "*"}
	if !strings.HasSuffix(pattern, "/") {
		patterns = []string{pattern, pattern + "/", pattern + "/*"}
	}
	c.add("", patterns, h, at, func() { c.Router.Mount(pattern, h) })
}

// Handle registers h for pattern ("METHOD /path", or "/path" for every
// method), as chi does, once.
func (c *chiRouter) Handle(pattern string, h http.Handler) { c.handle(pattern, h, callerAt(2)) }

// HandleFunc registers h for pattern; see [chiRouter.Handle].
func (c *chiRouter) HandleFunc(pattern string, h http.HandlerFunc) { c.handle(pattern, h, callerAt(2)) }

func (c *chiRouter) handle(pattern string, h http.Handler, at string) {
	if i := strings.IndexAny(pattern, " \t"); i >= 0 {
		c.method(pattern[:i], strings.TrimLeft(pattern[i+1:], " \t"), h, at)
		return
	}
	c.add("", []string{pattern}, h, at, func() { c.Router.Handle(pattern, h) })
}

func (c *chiRouter) method(method, pattern string, h http.Handler, at string) {
	c.add(method, []string{pattern}, h, at, func() { c.Router.Method(method, pattern, h) })
}

// Method and MethodFunc register h for method on pattern, once.
func (c *chiRouter) Method(method, pattern string, h http.Handler)         { c.on(method, pattern, h) }
func (c *chiRouter) MethodFunc(method, pattern string, h http.HandlerFunc) { c.on(method, pattern, h) }

// Connect, Delete, Get, Head, Options, Patch, Post, Put, Query and Trace
// register h for their method on pattern, once.
func (c *chiRouter) Connect(pattern string, h http.HandlerFunc) { c.on(http.MethodConnect, pattern, h) }
func (c *chiRouter) Delete(pattern string, h http.HandlerFunc)  { c.on(http.MethodDelete, pattern, h) }
func (c *chiRouter) Get(pattern string, h http.HandlerFunc)     { c.on(http.MethodGet, pattern, h) }
func (c *chiRouter) Head(pattern string, h http.HandlerFunc)    { c.on(http.MethodHead, pattern, h) }
func (c *chiRouter) Options(pattern string, h http.HandlerFunc) { c.on(http.MethodOptions, pattern, h) }
func (c *chiRouter) Patch(pattern string, h http.HandlerFunc)   { c.on(http.MethodPatch, pattern, h) }
func (c *chiRouter) Post(pattern string, h http.HandlerFunc)    { c.on(http.MethodPost, pattern, h) }
func (c *chiRouter) Put(pattern string, h http.HandlerFunc)     { c.on(http.MethodPut, pattern, h) }
func (c *chiRouter) Query(pattern string, h http.HandlerFunc)   { c.on("QUERY", pattern, h) }
func (c *chiRouter) Trace(pattern string, h http.HandlerFunc)   { c.on(http.MethodTrace, pattern, h) }

// on registers h for method on pattern for the method of c its caller is
// (Get, Method): the registration is where that was called.
func (c *chiRouter) on(method, pattern string, h http.Handler) {
	c.method(method, pattern, h, callerAt(3))
}
