package metrics

import (
	"net/http"

	"github.com/svckit/svc/modules/metrics/internal/registry"
)

// Details of the endpoint's refusals. They say what to do without naming
// the exporter in use: the endpoint may face callers who should not learn
// the deployment's backends.
const (
	detailNotServed   = "This service does not serve metrics for scraping."
	detailNotRunning  = "Metrics collection is not running."
	detailWrongMethod = "The metrics endpoint answers GET and HEAD only."
)

// Handler serves the Prometheus text exposition of m's own registry (the
// format the scraper negotiates, text by default). It answers GET and HEAD.
// The exposition itself comes from package
// github.com/svckit/svc/modules/metrics/prometheus, which a component with
// the prometheus exporter cannot be built without.
//
// Refusals are RFC 9457 problem bodies (application/problem+json, type
// about:blank, with Cache-Control: no-store and X-Content-Type-Options:
// nosniff):
//
//   - 404 when m's exporter is not prometheus (OTLP, console, none, or m
//     nil): metrics are pushed, or off, and there is nothing to scrape;
//   - 503 before m is opened and after it is closed;
//   - 405 with Allow: GET, HEAD for other methods.
//
// With m nil it serves, at each request, the component currently open:
// the active one of the running app (404 when there is none, or when it is
// not prometheus).
//
// Gate it with your own middleware (see Router) when it must not be public.
func Handler(m *Metrics) http.Handler {
	var fixed http.Handler
	if m != nil {
		fixed = m.scrapeHandler()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeProblem(w, r, http.StatusMethodNotAllowed, detailWrongMethod)
			return
		}
		c, prom := m, fixed
		if c == nil {
			if c = currentComponent(); c != nil {
				prom = c.scrapeHandler()
			}
		}
		if prom == nil {
			writeProblem(w, r, http.StatusNotFound, detailNotServed)
			return
		}
		if !c.Active() {
			w.Header().Set("Retry-After", "1")
			writeProblem(w, r, http.StatusServiceUnavailable, detailNotRunning)
			return
		}
		prom.ServeHTTP(w, r)
	})
}

// scrapeHandler is the exporter's own handler when it serves scrapes (the
// prometheus exporter), else nil.
func (m *Metrics) scrapeHandler() http.Handler {
	if s, ok := m.expState.(registry.Scraper); ok {
		return s.ScrapeHandler()
	}
	return nil
}
