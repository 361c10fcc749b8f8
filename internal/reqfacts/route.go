package reqfacts

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
)

// The route of a request is the path template of the route the app's
// router dispatches it to, in the router's own syntax and without the
// method or a host: "/orders/{id}" on chi, on a ServeMux (registered as
// "GET /orders/{id}") and under Huma alike. It is OpenTelemetry's
// http.route; the server span is named by the method and the route
// ("GET /orders/{id}"). Every part of svc that names a route (the HTTP
// server metrics, the access log, the span, the gate's metrics and
// records, the rate limits' metrics, the components' exclusions and
// `check`) names it by the functions of this file, so that they agree.

// Route returns the route r is dispatched to, "" and false when no route
// answers it. Behind the telemetry wrapper it is the request's State's,
// found once for all its readers ([State.Route]); without the wrapper it
// is read from the request: the route of the chi router dispatching r,
// else the pattern net/http's ServeMux chose (Request.Pattern).
func Route(r *http.Request) (string, bool) {
	if s := From(r.Context()); s != nil {
		return s.Route(r)
	}
	return requestRoute(r)
}

// requestRoute is the route the request says it was dispatched to, once a
// router dispatched it.
func requestRoute(r *http.Request) (string, bool) {
	// chi first: it sets Request.Pattern too, to its RoutePattern, which
	// drops a route's trailing slash ("/orders/" is "/orders").
	if rctx := chi.RouteContext(r.Context()); rctx != nil && rctx.Routes != nil {
		route, _ := ChiRoute(rctx.Routes, r)
		return route, route != ""
	}
	if r.Pattern != "" {
		return PatternRoute(r.Pattern), true
	}
	return "", false
}

// PatternRoute is the route of a net/http ServeMux pattern: its path part,
// without method and host ("GET example.com/orders/{id}" is
// "/orders/{id}"). A method and a host hold no "/", so the path starts at
// the first one.
func PatternRoute(pattern string) string {
	if i := strings.IndexByte(pattern, '/'); i >= 0 {
		return pattern[i:]
	}
	return pattern
}

// WalkedRoute is the route of a pattern chi.Walk lists, as [ChiRoute]
// finds it: a route of a sub-router mounted through Route("/", …) is
// walked as "/a/*/x" and found as "/a/x".
func WalkedRoute(pattern string) string {
	for strings.Contains(pattern, "/*/") {
		pattern = strings.ReplaceAll(pattern, "/*/", "/")
	}
	return pattern
}

// RouterFinder is how the telemetry wrapper finds routes on a router no
// gate guards: a chi router's by [ChiRoute], a ServeMux's by the pattern
// it picks ([PatternRoute]); nil for any other handler, whose requests
// have no route.
func RouterFinder(h http.Handler) Finder {
	switch mux := h.(type) {
	case chi.Routes:
		return chiFinder{mux}
	case muxFinder:
		return serveMuxFinder{mux}
	}
	return nil
}

type chiFinder struct{ mux chi.Routes }

func (c chiFinder) FindRoute(r *http.Request) (string, bool) {
	route, _ := ChiRoute(c.mux, r)
	return route, route != ""
}

type muxFinder interface {
	Handler(r *http.Request) (http.Handler, string)
}

type serveMuxFinder struct{ mux muxFinder }

func (s serveMuxFinder) FindRoute(r *http.Request) (string, bool) {
	_, pattern := s.mux.Handler(r)
	if pattern == "" {
		return "", false
	}
	return PatternRoute(pattern), true
}
