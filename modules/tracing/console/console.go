// Package console links the console span exporter into a binary:
//
//	import _ "github.com/svckit/svc/modules/tracing/console"
//
// Importing it registers the exporter with package tracing; it exports
// nothing. The exporter writes each span as one line of JSON to standard
// output, or to tracing.WithConsoleWriter's writer. Without the import,
// SVC_TRACING_EXPORTER=console fails construction with a
// *tracing.ConfigError that names this import.
package console

import (
	"context"

	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"

	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/modules/tracing/internal/registry"
)

func init() {
	registry.Register("console", func(_ context.Context, s otelcore.Setup) (*stdouttrace.Exporter, error) {
		return stdouttrace.New(stdouttrace.WithWriter(s.Console))
	})
}
