// Command example is a runnable svc service that uses every module.
//
//	make run                       # serve on 127.0.0.1:8080
//	go run ./cmd/example check     # list the routes and how they are guarded
//
// It trusts SVC_AUTHN_ISSUER / SVC_AUTHN_AUDIENCE when set. When both are
// unset it starts an embedded DEVELOPMENT issuer on loopback and prints
// ready-to-paste curl commands with tokens from it.
//
// Set SVC_EXAMPLE_ERRORS=tmf to answer errors in TM Forum TMF630 instead of
// RFC 9457 problem details (SVC_EXAMPLE_ERRORS=rfc9457, the default); any
// other value stops the start.
package main

import (
	"fmt"
	"os"
	"strings"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/svckit/svc/fxsvc"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/metrics"
	// The exporters SVC_METRICS_EXPORTER and SVC_TRACING_EXPORTER may
	// choose: the cores link none (an app that pushes nothing stays small).
	_ "github.com/svckit/svc/modules/metrics/allexporters"
	_ "github.com/svckit/svc/modules/tracing/console"
	_ "github.com/svckit/svc/modules/tracing/otlpgrpc"
	_ "github.com/svckit/svc/modules/tracing/otlphttp"
)

func main() {
	fxsvc.Main(options()...)
}

// options is the whole app, shared by main and the tests.
func options() []fx.Option {
	return []fx.Option{
		fx.Provide(newLogger),
		errorFormat(),
		fxsvc.CheckSettings(checkResource),
		// The example's own variables: a typo of one is warned about at
		// start, and neither is taken for a typo of the kit's.
		fxsvc.KnownVariables("SVC_EXAMPLE_ERRORS", "SVC_EXAMPLE_RESOURCE"),
		// Prometheus unless SVC_METRICS_EXPORTER says otherwise.
		fxsvc.Metrics(metrics.WithDefaultExporter("prometheus")),
		fxsvc.Tracing(), // inactive unless SVC_TRACING_EXPORTER or an OTLP endpoint is set
		trust(),
		behindGate(),
		// /livez, and /readyz: 503 until the verifier holds keys (and the
		// outbound client, when configured, found its server), and from
		// the start of a stop (SVC_HTTP_SHUTDOWN_DELAY).
		fxsvc.Health(),
		fx.Provide(newBilling, newRouter),
		fxsvc.Serve(),
		fx.Invoke(func(b *billing, s *fxsvc.Server) { b.server = s }),
		fx.Invoke(printTour),
	}
}

// errorFormat reads SVC_EXAMPLE_ERRORS: unset, "rfc9457" or "problem" for
// RFC 9457 problem details, "tmf" for TM Forum TMF630 (any case). Anything
// else fails the start naming the variable: a typo must not silently give
// clients another format than the one deployed for.
func errorFormat() fx.Option {
	switch f := os.Getenv("SVC_EXAMPLE_ERRORS"); strings.ToLower(f) {
	case "", "rfc9457", "problem":
		return fxsvc.Errors()
	case "tmf":
		return fxsvc.TMFErrors("EXAMPLE", svcerrors.KindDocs)
	default:
		// Reported with every other bad setting, not alone.
		return fxsvc.CheckSettings(func() error {
			return fmt.Errorf("example: SVC_EXAMPLE_ERRORS=%q is not an error format: use rfc9457 (the default, also \"problem\") or tmf", f)
		})
	}
}

func newLogger() (*zap.Logger, error) {
	cfg := zap.NewDevelopmentConfig()
	cfg.DisableStacktrace = true
	return cfg.Build()
}
