package fxsvc_test

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
)

func newRouter() *chi.Mux {
	r := chi.NewRouter()
	r.With(authn.Anonymous).Get("/hello", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("hello\n"))
	})
	r.With(authn.Require("read")).Get("/reports", func(w http.ResponseWriter, r *http.Request) {
		p, _ := authn.PrincipalFrom(r.Context())
		_, _ = w.Write([]byte("reports for " + p.Subject + "\n"))
	})
	return r
}

// A service's main: RFC 9457 errors, every route authenticated against the
// issuer of SVC_AUTHN_ISSUER and SVC_AUTHN_AUDIENCE, served on
// SVC_HTTP_ADDR. `BINARY check` prints the routes without starting.
//
// Compile-only (no Output): Main serves until SIGINT or SIGTERM, then exits.
func ExampleMain() {
	fxsvc.Main(
		fxsvc.Errors(),
		fxsvc.Authn(nil),
		fx.Provide(newRouter),
		fxsvc.Serve(),
	)
}
