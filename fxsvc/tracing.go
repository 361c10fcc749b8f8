package fxsvc

import (
	"context"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/internal/lifecycle"
	"github.com/svckit/svc/internal/otelcore"
	"github.com/svckit/svc/modules/tracing"
)

// Tracing adds the tracing component to the app: built by tracing.New from
// opts over the environment (SVC_TRACING_*, the OTEL_* fallbacks), opened
// when the app starts (its provider becomes the process-global tracer
// provider and the W3C propagator the global one) and closed when it stops
// (flush bounded by SVC_TRACING_SHUTDOWN_TIMEOUT, the previous provider
// and propagator restored). It provides *tracing.Tracing to the graph and
// logs to the graph's *zap.Logger, or to [DefaultLogger] when the app has
// none (a tracing.WithLogger in opts wins). Add it before Serve, so
// that it opens before the server accepts and flushes after the drain.
//
// The exporters are linked by import: a binary that lets the environment
// choose otlp-http imports github.com/svckit/svc/modules/tracing/otlphttp
// for its side effect, and so on for otlpgrpc and console.
//
// It refuses: a second Tracing in one app (fx.New fails: fx refuses the
// second provider of *tracing.Tracing, named onlyOneTracingPerApp; any
// other component claiming the tracing kind gets an error naming both
// registrations), an invalid setting and an exporter not
// linked into the binary (fx.New fails with a *tracing.ConfigError naming
// the variable or option, and the import to add). An inactive component
// (exporter auto with no endpoint, or none) is registered and installs
// nothing, so Tracing() may be added unconditionally.
func Tracing(opts ...tracing.Option) fx.Option {
	return fx.Module("svc.tracing",
		lifecycle.Singleton("tracing", "fxsvc.Tracing"),
		KnownVariables(knownEnvOf(&tracing.Config{}, "SVC_TRACING_")...),
		fx.Supply(fx.Private, tracingOptions(opts)),
		checkSettingsFor(func(env settingsEnv) error {
			t, err := tracing.New(append([]tracing.Option{tracing.WithLogger(zap.NewNop())}, opts...)...)
			if err == nil {
				env.stop.traceFlush = otelcore.Of(t).ShutdownTimeout()
			}
			return err
		}),
		fx.Provide(onlyOneTracingPerApp),
		describe("tracing", encodeTracing),
		// Build it even when nothing asks for it: the global provider is
		// its point.
		fx.Invoke(func(*tracing.Tracing) {}),
		fx.Provide(fx.Annotate(func(t *tracing.Tracing) stopPart {
			return stopPart{kind: "tracing", d: otelcore.Of(t).ShutdownTimeout()}
		}, fx.ResultTags(`group:"svc.stop.parts"`))),
	)
}

type tracingOptions []tracing.Option

type tracingParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Options   tracingOptions
	Log       logIn
}

// onlyOneTracingPerApp builds and registers the component. Its name is
// what fx reports when an app adds Tracing twice.
func onlyOneTracingPerApp(p tracingParams) (*tracing.Tracing, error) {
	log, err := p.Log.get()
	if err != nil {
		return nil, err
	}
	// First, so a tracing.WithLogger in opts still wins.
	all := append([]tracing.Option{tracing.WithLogger(log)}, p.Options...)
	t, err := tracing.New(all...)
	if err != nil {
		return nil, err
	}
	lifecycle.Register(p.Lifecycle, namedTracing{t})
	return t, nil
}

// namedTracing gives the component its lifecycle name, "tracing/<name>",
// so open and close errors say which part failed.
type namedTracing struct{ t *tracing.Tracing }

func (n namedTracing) Name() string                    { return "tracing/" + n.t.Name() }
func (n namedTracing) Open(ctx context.Context) error  { return n.t.Open(ctx) }
func (n namedTracing) Close(ctx context.Context) error { return n.t.Close(ctx) }

// encodeTracing is the component's part of the start line. An inactive
// tracer flushes nothing on stop: it shows no shutdown timeout, rather
// than a 0s beside the documented 1 s.
func encodeTracing(t *tracing.Tracing, enc zapcore.ObjectEncoder) {
	c := otelcore.Of(t)
	enc.AddString("name", t.Name())
	enc.AddString("exporter", c.Exporter)
	enc.AddBool("active", c.Active())
	if c.Exporter != "none" {
		enc.AddDuration("shutdown_timeout", c.ShutdownTimeout())
	}
}
