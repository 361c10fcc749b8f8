// Command example is a runnable svc service that uses every module.
//
//	make run                       # serve on 127.0.0.1:8080
//	go run ./cmd/example check     # list the routes and how they are guarded
//
// It trusts SVC_AUTHN_ISSUER / SVC_AUTHN_AUDIENCE when set. When they are
// unset it starts an embedded DEVELOPMENT issuer on loopback and prints
// ready-to-paste curl commands with tokens from it.
//
// Set SVC_EXAMPLE_ERRORS=tmf to answer errors in TM Forum TMF630 instead of
// RFC 9457 problem details.
package main

import (
	"os"
	"strings"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/svckit/svc/fxsvc"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/metrics"
	// The span exporters SVC_TRACING_EXPORTER may choose.
	_ "github.com/svckit/svc/modules/tracing/console"
	_ "github.com/svckit/svc/modules/tracing/otlptracegrpc"
	_ "github.com/svckit/svc/modules/tracing/otlptracehttp"
)

func main() {
	fxsvc.Main(options()...)
}

// options is the whole app, shared by main and the tests.
func options() []fx.Option {
	return []fx.Option{
		fx.Provide(newLogger),
		errorFormat(),
		// Prometheus unless SVC_METRICS_EXPORTER says otherwise.
		fxsvc.Metrics(metrics.WithDefaultExporter(metrics.ExporterPrometheus)),
		fxsvc.Tracing(), // inactive unless SVC_TRACING_EXPORTER or an OTLP endpoint is set
		trust(),
		fx.Provide(newBilling, newRouter),
		fxsvc.Serve(),
		fx.Invoke(func(b *billing, s *fxsvc.Server) { b.server = s }),
		fx.Invoke(printTour),
	}
}

func errorFormat() fx.Option {
	if strings.EqualFold(os.Getenv("SVC_EXAMPLE_ERRORS"), "tmf") {
		return fxsvc.TMFErrors("EXAMPLE", svcerrors.KindDocs)
	}
	return fxsvc.Errors()
}

func newLogger() (*zap.Logger, error) {
	cfg := zap.NewDevelopmentConfig()
	cfg.DisableStacktrace = true
	return cfg.Build()
}
