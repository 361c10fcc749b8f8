// Command floor is the size floor for bench/README.md's binary sizes: the
// libraries svc stands on (fx, zap, chi, net/http with TLS, the OTel API)
// and nothing of svc.
package main

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel"
	"go.uber.org/fx"
	"go.uber.org/zap"
)

func main() {
	fx.New(fx.Provide(chi.NewRouter), fx.Invoke(func(m *chi.Mux) {
		_ = otel.Tracer("floor")
		zap.L().Info("floor")
		go func() { _ = http.ListenAndServeTLS("127.0.0.1:0", "", "", m) }()
	})).Run()
}
