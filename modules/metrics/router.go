package metrics

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
)

// RouterOption configures Router.
type RouterOption func(*routerConfig)

type routerConfig struct {
	prefix, path string
	middlewares  []func(http.Handler) http.Handler
}

// WithPrefix sets the prefix put before the path (default empty).
func WithPrefix(prefix string) RouterOption { return func(c *routerConfig) { c.prefix = prefix } }

// WithPath sets the endpoint's path (default /metrics).
func WithPath(path string) RouterOption { return func(c *routerConfig) { c.path = path } }

// WithMiddlewares runs mws, in order, before the endpoint only. A
// middleware that refuses (401, 403, ...) gates the endpoint.
func WithMiddlewares(mws ...func(http.Handler) http.Handler) RouterOption {
	return func(c *routerConfig) { c.middlewares = append(c.middlewares, mws...) }
}

// Router returns a chi router that answers GET (and HEAD) {prefix}{path}
// with Handler(m). Prefix and path are normalised to start with "/" (so
// "ops/" and "prom" serve /ops/prom) and are chi patterns: one chi cannot
// parse (an unclosed "{", a "*" before the end) panics here as chi's Get
// would, at wiring time, never while serving. Other paths answer a 404 problem body and other
// methods a 405 one with Allow. Serve it on an admin listener, or mount it
// into the app's router under a prefix:
//
//	r.Mount("/internal", metrics.Router(m))   // GET /internal/metrics
//
// or add the route yourself: r.With(gate).Get("/metrics", metrics.Handler(m)).
func Router(m *Metrics, opts ...RouterOption) chi.Router {
	c := routerConfig{path: "/metrics"}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	pattern := cleanPrefix(c.prefix) + "/" + strings.TrimLeft(c.path, "/")
	r := chi.NewRouter()
	r.NotFound(func(w http.ResponseWriter, req *http.Request) {
		writeProblem(w, req, http.StatusNotFound, "No endpoint here.")
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, req *http.Request) {
		// chi passes no Allow header to a custom handler; one route, so
		// it is known.
		w.Header().Set("Allow", "GET, HEAD")
		writeProblem(w, req, http.StatusMethodNotAllowed, detailWrongMethod)
	})
	h := Handler(m)
	r.With(c.middlewares...).Get(pattern, h.ServeHTTP)
	r.With(c.middlewares...).Head(pattern, h.ServeHTTP)
	return r
}

func cleanPrefix(p string) string {
	p = strings.Trim(p, "/")
	if p == "" {
		return ""
	}
	return "/" + p
}
