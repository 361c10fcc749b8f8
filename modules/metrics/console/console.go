// Package console links the console metrics exporter: JSON lines every
// export_interval, to standard output or metrics.WithConsoleWriter's
// writer. Import it for its effect:
//
//	import _ "github.com/svckit/svc/modules/metrics/console"
//
// Without it a component whose exporter is console fails construction with
// a *metrics.ConfigError naming this import.
package console

import (
	"context"

	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/modules/metrics/internal/registry"
)

func init() {
	registry.RegisterPush("console", func(_ context.Context, s otelcore.Setup) (sdkmetric.Exporter, error) {
		return stdoutmetric.New(stdoutmetric.WithWriter(s.Console))
	})
}
