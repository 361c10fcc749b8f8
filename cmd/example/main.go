// Command example is a runnable svc service that uses every module.
//
//	make run                       # serve on 127.0.0.1:8080
//	go run ./cmd/example check     # list the routes and how they are guarded
//
// Set SVC_EXAMPLE_ERRORS=tmf to answer errors in TM Forum TMF630 instead of
// RFC 9457 problem details.
package main

import (
	"net/http"
	"os"
	"strings"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/svckit/svc/fxsvc"
	svcerrors "github.com/svckit/svc/modules/errors"
)

func main() {
	fxsvc.Main(options()...)
}

// options is the whole app, shared by main and the tests.
func options() []fx.Option {
	return []fx.Option{
		fx.Provide(newLogger),
		errorFormat(),
		fx.Provide(newRouter),
		fxsvc.Serve(),
	}
}

func errorFormat() fx.Option {
	if strings.EqualFold(os.Getenv("SVC_EXAMPLE_ERRORS"), "tmf") {
		return fxsvc.TMFErrors("EXAMPLE", svcerrors.KindDocs)
	}
	return fxsvc.Errors()
}

func newLogger() (*zap.Logger, error) {
	return zap.NewDevelopment()
}

func newRouter() *chi.Mux {
	r := chi.NewRouter()
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mountErrorDemo(r)
	return r
}
