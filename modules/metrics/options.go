package metrics

import (
	"io"

	"go.uber.org/zap"

	"github.com/svckit/svc/internal/otelcore"
)

// Option configures New and FromConfig. Options that set a Config field
// win over the environment; the OTEL_* fallbacks apply only to fields that
// neither an option nor SVC_METRICS_* set.
type Option func(*otelcore.Builder[Config])

// WithConfig sets every field cfg sets (every non-zero one), over the
// environment; errors name such a field "Config.<Field> of
// metrics.WithConfig".
func WithConfig(cfg Config) Option { return func(b *otelcore.Builder[Config]) { b.Take(sig, cfg) } }

// WithDefaultExporter replaces auto as the default: it applies only when
// neither SVC_METRICS_EXPORTER nor Config.Exporter (WithConfig) chose an
// exporter. An example or dev build can default to prometheus while a
// deployment still picks otlp-http through the environment.
func WithDefaultExporter(e string) Option {
	return func(b *otelcore.Builder[Config]) { b.DefaultExporter = e }
}

// WithName names the component (default "default"); it shows in errors,
// logs and the lifecycle name "metrics/<name>".
func WithName(name string) Option { return func(b *otelcore.Builder[Config]) { b.Name = name } }

// WithLogger sets the logger for the component's warnings (an abandoned
// flush) and OpenTelemetry's errors. The default writes warnings as JSON
// to standard error.
func WithLogger(l *zap.Logger) Option { return func(b *otelcore.Builder[Config]) { b.Log = l } }

// WithConsoleWriter sets where the console exporter writes (default
// standard output).
func WithConsoleWriter(w io.Writer) Option {
	return func(b *otelcore.Builder[Config]) { b.Console = w }
}
