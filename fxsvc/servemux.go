package fxsvc

import (
	"net/http"

	"go.uber.org/fx"

	"github.com/svckit/svc/modules/authn"
)

// ServeMux makes the app's *authn.ServeMux (a net/http ServeMux that
// remembers its patterns) the router [Serve] serves, and lists its routes
// in `check`. Provide the mux yourself, with its routes registered in its
// constructor so that the gate checks them when it is installed:
//
//	fx.Provide(func() *authn.ServeMux {
//		mux := authn.NewServeMux()
//		mux.Handle("GET /hello", authn.Anonymous(http.HandlerFunc(hello)))
//		mux.HandleFunc("GET /me", me)
//		return mux
//	}),
//	fxsvc.ServeMux(),
//
// A plain *http.ServeMux in the graph is served and gated too, but it
// cannot list its patterns: `check` does not see its routes.
func ServeMux() fx.Option {
	return withKit(fx.Module("svc.servemux",
		fx.Provide(fx.Annotate(func(m *authn.ServeMux) http.Handler { return m })),
		fx.Provide(fx.Annotate(newServeMuxRoutes, fx.ResultTags(`group:"svc.routes"`))),
	))
}

type serveMuxIn struct {
	fx.In
	Mux    *authn.ServeMux
	Guard  routeGuard   `optional:"true"`
	Noters []routeNoter `group:"svc.route.notes"`
}

// serveMuxRoutes lists a ServeMux's routes for `check`.
type serveMuxRoutes struct{ in serveMuxIn }

func newServeMuxRoutes(in serveMuxIn) routeLister { return serveMuxRoutes{in} }

func (s serveMuxRoutes) Routes() []route {
	var out []route
	for _, rt := range s.in.Mux.Routes() {
		method := rt.Method
		if method == "" {
			method = "*"
		}
		r := guarded(s.in.Guard, method, rt.Path, rt.Handler, nil)
		r.Pattern = rt.Host + rt.Path
		r.Notes = noteRoute(s.in.Noters, rt.Handler, nil)
		out = append(out, r)
	}
	return out
}
