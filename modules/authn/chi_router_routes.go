package authn

import (
	"cmp"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"
)

// chiRegistrations are the routes registered on one chi route tree, by
// chiRouteKey of their pattern.
type chiRegistrations struct {
	mu     sync.Mutex
	routes map[string][]chiRegistration
}

// chiRegistration is one route as registered: its method ("" for every
// method: chi's Handle, a mount), its pattern, where (file:line), and what
// to read its guard from should it be refused.
type chiRegistration struct {
	method, pattern, at string
	h                   http.Handler
	mws                 chi.Middlewares
	mount               bool // one of a Mount's (or Route's) patterns
	mountPath           bool // the mount's own path (p or p/), where chi reaches the mounted router's "/"
}

// add registers a route (or, for mount, a Mount's patterns) through
// register, after refusing one that chi would replace, or that would
// replace one registered before; the refusal names both. A route chi
// refuses itself (a bad method or pattern) is not remembered.
func (c *chiRouter) add(method string, patterns []string, mount bool, h http.Handler, register func()) {
	at := registeredAt()
	next := chiRegistration{method: strings.ToUpper(method), at: at, h: h, mws: c.applied(), mount: mount}
	whole := func(pattern string) string { return strings.TrimSuffix(c.prefix, "/") + pattern }
	keys := make([]string, len(patterns))
	c.seen.mu.Lock()
	for i, pattern := range patterns {
		keys[i] = chiRouteKey(pattern)
		for _, first := range c.seen.routes[keys[i]] {
			if !chiReplaces(first, next) {
				continue
			}
			c.seen.mu.Unlock()
			name := fmt.Sprintf("%q", cmp.Or(next.method, first.method, "every method of")+" "+whole(pattern))
			if first.pattern != pattern {
				name += fmt.Sprintf(" (first as %q)", whole(first.pattern))
			}
			panic(fmt.Sprintf("authn.NewChiRouter: %s is registered twice: at %s (%s) and at %s (%s); chi would replace one with the other: register each route once",
				name, first.at, guardWords(first.h, first.mws), at, guardWords(h, next.mws)))
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
		next.mountPath = mount && i < len(keys)-1
		c.seen.routes[key] = append(c.seen.routes[key], next)
	}
}

// chiReplaces reports whether chi, given next on a pattern first holds,
// would serve one of them where it served the other: their methods meet
// (Handle and a mount are every method). A route at a mount's own path
// replaces only the mounted router's "/" route for its method; what a
// handler other than a chi router answers there cannot be known, so it is
// not refused.
func chiReplaces(first, next chiRegistration) bool {
	if first.method != next.method && first.method != "" && next.method != "" {
		return false
	}
	if first.mountPath && !next.mount {
		return servesRoot(first.h, next.method)
	}
	return true
}

// chiMethods are the methods chi routes without chi.RegisterMethod.
var chiMethods = []string{http.MethodConnect, http.MethodDelete, http.MethodGet, http.MethodHead,
	http.MethodOptions, http.MethodPatch, http.MethodPost, http.MethodPut, "QUERY", http.MethodTrace}

// servesRoot reports whether h, mounted, has a route for method ("" for
// any) at its "/".
func servesRoot(h http.Handler, method string) bool {
	routes, ok := h.(chi.Routes)
	if !ok {
		return false
	}
	methods := chiMethods
	if method != "" {
		methods = []string{method}
	}
	for _, m := range methods {
		if routes.Match(chi.NewRouteContext(), m, "/") {
			return true
		}
	}
	return false
}

// chiRouteKey is pattern as chi's route tree tells patterns apart: a
// parameter without its name ("/users/{id}" and "/users/{uid}" are one
// route, the second replacing the first), with its regular expression
// anchored as chi anchors it ("{id:[0-9]+}" and "{n:^[0-9]+$}" are one).
func chiRouteKey(pattern string) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(pattern, '{')
		if open < 0 {
			b.WriteString(pattern)
			return b.String()
		}
		b.WriteString(pattern[:open+1])
		pattern = pattern[open:]
		end, depth := -1, 0
		for i := 0; i < len(pattern) && end < 0; i++ {
			switch pattern[i] {
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					end = i
				}
			}
		}
		if end < 0 {
			// chi refuses it ("closing delimiter '}' is missing").
			b.WriteString(pattern[1:])
			return b.String()
		}
		if _, rexpat, isRegexp := strings.Cut(pattern[1:end], ":"); isRegexp {
			if rexpat != "" && rexpat[0] != '^' {
				rexpat = "^" + rexpat
			}
			if rexpat != "" && rexpat[len(rexpat)-1] != '$' {
				rexpat += "$"
			}
			b.WriteString(":" + rexpat)
		}
		pattern = pattern[end:]
	}
}
