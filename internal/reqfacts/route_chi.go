package reqfacts

import (
	"net/http"
	"sync"

	"github.com/go-chi/chi/v5"
)

// lookups are the route contexts [ChiRoute] looks routes up in: chi's
// Find writes its URL parameters into one, which nobody reads.
var lookups = sync.Pool{New: func() any { return new(chi.Context) }}

// ChiRoute returns the route mux dispatches r to and the method of that
// route: r's own, or GET for a HEAD that only a GET route answers (as the
// chihead router then serves it). The route is "" when none answers r.
func ChiRoute(mux chi.Routes, r *http.Request) (route, method string) {
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	if route = chiFind(mux, r.Method, path); route != "" || r.Method != http.MethodHead {
		return route, r.Method
	}
	if route = chiFind(mux, http.MethodGet, path); route != "" {
		return route, http.MethodGet
	}
	return "", r.Method
}

func chiFind(mux chi.Routes, method, path string) string {
	rctx := lookups.Get().(*chi.Context)
	rctx.Reset()
	route := mux.Find(rctx, method, path)
	lookups.Put(rctx)
	return route
}
