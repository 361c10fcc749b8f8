package reqfacts_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/chihead"
	"github.com/svckit/svc/internal/reqfacts"
)

func TestPatternRouteIsThePathPart(t *testing.T) {
	for pattern, want := range map[string]string{
		"GET /orders/{id}":             "/orders/{id}",
		"/orders/{id}":                 "/orders/{id}",
		"POST\t /orders/":              "/orders/",
		"GET example.com/orders/{id}":  "/orders/{id}",
		"example.com/":                 "/",
		"DELETE /files/{path...}":      "/files/{path...}",
		"GET /{$}":                     "/{$}",
		"GET api.example.com:8443/x/y": "/x/y",
	} {
		if got := reqfacts.PatternRoute(pattern); got != want {
			t.Errorf("PatternRoute(%q) = %q, want %q", pattern, got, want)
		}
	}
}

// routeRow is one request to one router and the route every reader must
// name for it.
type routeRow struct {
	router   string
	method   string
	path     string
	want     string
	notFound bool
}

func routers(seen *string) map[string]http.Handler {
	record := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		route, found := reqfacts.Route(r)
		if !found {
			route = "(not found)"
		}
		*seen = route
	})
	sub := chi.NewRouter()
	sub.Get("/users/{id}", record)
	c := chi.NewRouter()
	c.Get("/orders/{id}", record)
	c.Get("/orders/", record)
	c.Route("/reports", func(r chi.Router) { r.Get("/", record) })
	c.Mount("/admin", sub)

	mux := http.NewServeMux()
	mux.Handle("GET /orders/{id}", record)
	mux.Handle("GET /files/", record)
	mux.Handle("GET example.com/hosted/{id}", record)
	return map[string]http.Handler{"chi": chihead.Wrap(c), "ServeMux": mux}
}

// The route is the path template in the router's syntax, without method
// or host, and the same whether the request's State finds it before
// dispatch (as the telemetry wrapper and the gate do), a reader asks it
// inside the handler behind the wrapper, or without one.
func TestRouteIsOneRuleOnChiAndServeMux(t *testing.T) {
	rows := []routeRow{
		{router: "chi", method: "GET", path: "/orders/7", want: "/orders/{id}"},
		// chi's own RoutePattern drops the trailing slash: "/orders".
		{router: "chi", method: "GET", path: "/orders/", want: "/orders/"},
		{router: "chi", method: "GET", path: "/reports/", want: "/reports/"},
		// chi serves a sub-router's "/" at the mount's path too, and
		// finds it there as the mount's path.
		{router: "chi", method: "GET", path: "/reports", want: "/reports"},
		{router: "chi", method: "GET", path: "/admin/users/1", want: "/admin/users/{id}"},
		{router: "chi", method: "HEAD", path: "/orders/7", want: "/orders/{id}"},
		{router: "chi", method: "GET", path: "/nothing", notFound: true},
		// net/http's Request.Pattern is "GET /orders/{id}".
		{router: "ServeMux", method: "GET", path: "/orders/7", want: "/orders/{id}"},
		{router: "ServeMux", method: "GET", path: "/files/a/b", want: "/files/"},
		{router: "ServeMux", method: "GET", path: "http://example.com/hosted/1", want: "/hosted/{id}"},
		{router: "ServeMux", method: "GET", path: "/nothing", notFound: true},
	}
	for _, row := range rows {
		var inside string
		router := routers(&inside)[row.router]
		want := row.want
		if row.notFound {
			want = "(not found)"
		}
		for _, wrapped := range []bool{false, true} {
			inside = "(not reached)"
			r := httptest.NewRequest(row.method, row.path, nil)
			var st *reqfacts.State
			if wrapped {
				st = new(reqfacts.State)
				st.SetFinder(reqfacts.RouterFinder(router))
				r = r.WithContext(reqfacts.With(r.Context(), st))
			}
			router.ServeHTTP(httptest.NewRecorder(), r)
			if !row.notFound && inside != want {
				t.Errorf("%s %s %s (wrapped %v): the handler reads %q, want %q", row.router, row.method, row.path, wrapped, inside, want)
			}
			if st == nil {
				continue
			}
			route, found := st.Route(r)
			if !found {
				route = "(not found)"
			}
			if route != want {
				t.Errorf("%s %s %s: the wrapper reads %q, want %q", row.router, row.method, row.path, route, want)
			}
		}
	}
}

// Without a finder (a wrapper around a handler it cannot ask), the
// State keeps the route the router put on the request, for the wrapper to
// name after the handler ran; a reader before routing finds none and
// leaves it to be found.
func TestStateWithoutFinderKeepsTheRouteTheRouterGave(t *testing.T) {
	st := new(reqfacts.State)
	outer := httptest.NewRequest("GET", "/orders/7", nil)
	outer = outer.WithContext(reqfacts.With(outer.Context(), st))
	if route, found := reqfacts.Route(outer); found {
		t.Fatalf("before routing: %q", route)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /orders/{id}", func(_ http.ResponseWriter, r *http.Request) { _, _ = reqfacts.Route(r) })
	mux.ServeHTTP(httptest.NewRecorder(), outer.WithContext(outer.Context()))
	if route, found := st.Route(outer); !found || route != "/orders/{id}" {
		t.Fatalf("after the handler: %q %v", route, found)
	}
}
