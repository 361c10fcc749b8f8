package fxsvc

import (
	"context"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/lifecycle"
)

// otelSignal is what fxsvc.Metrics and fxsvc.Tracing share: a component
// of one OpenTelemetry signal, built from its options over the
// environment, registered once per app, named on the start line and
// counted in the stop budget. Each keeps only its own: its constructor
// (whose name fx reports for a second registration), its start-line part
// and anything more it provides.
type otelSignal[C otelComponent, O any] struct {
	kind   string // "metrics": the singleton kind and the stop part
	option string // "fxsvc.Metrics": named in errors
	prefix string // "SVC_METRICS_": its variables
	config any    // its env-tagged Config, for the known variables
	// build is the component's constructor in the graph, named
	// onlyOne<Kind>PerApp.
	build      any
	encode     func(C, zapcore.ObjectEncoder)
	newC       func(...O) (C, error)
	withLogger func(*zap.Logger) O
	// flush is the stop budget's part this signal's final flush takes.
	flush func(*stopParts) *time.Duration
	opts  []O
}

// otelComponent is what *metrics.Metrics and *tracing.Tracing have in
// common: a lifecycle component with an exporter and a final flush.
type otelComponent interface {
	Name() string
	Open(context.Context) error
	Close(context.Context) error
	Exporter() string
	Active() bool
	ShutdownTimeout() time.Duration
}

// namedSignal gives a signal's component its lifecycle name,
// "<kind>/<name>", so open and close errors say which part failed.
type namedSignal struct {
	kind string
	c    otelComponent
}

func (n namedSignal) Name() string                    { return n.kind + "/" + n.c.Name() }
func (n namedSignal) Open(ctx context.Context) error  { return n.c.Open(ctx) }
func (n namedSignal) Close(ctx context.Context) error { return n.c.Close(ctx) }

// encodeSignal writes what every signal's part of the start line begins
// with: its name, the exporter in force and whether it is active.
func encodeSignal(c otelComponent, enc zapcore.ObjectEncoder) {
	enc.AddString("name", c.Name())
	enc.AddString("exporter", c.Exporter())
	enc.AddBool("active", c.Active())
}

// module is the signal's fx.Module; options is the value its constructor
// takes its options from.
func (s otelSignal[C, O]) module(name string, options any, extra ...fx.Option) fx.Option {
	return fx.Module(name, append([]fx.Option{
		lifecycle.Singleton(s.kind, s.option),
		KnownVariables(knownEnvOf(s.config, s.prefix)...),
		fx.Supply(fx.Private, options),
		checkSettingsFor(func(env settingsEnv) error {
			// Built only to read its settings: it logs nothing.
			c, err := s.newC(append([]O{s.withLogger(zap.NewNop())}, s.opts...)...)
			if err == nil {
				*s.flush(env.stop) = c.ShutdownTimeout()
			}
			return err
		}),
		fx.Provide(s.build),
		describe(s.kind, s.encode),
		// Build it even when nothing asks for it: the global provider is
		// its point.
		fx.Invoke(func(C) {}),
		fx.Provide(fx.Annotate(func(c C) stopPart {
			return stopPart{kind: s.kind, d: c.ShutdownTimeout()}
		}, fx.ResultTags(`group:"svc.stop.parts"`))),
	}, extra...)...)
}

// buildIn builds the signal's component with the app's logger first, so
// that a WithLogger among opts still wins, and registers it with the app's
// lifecycle as "<kind>/<name>".
func (s otelSignal[C, O]) buildIn(lc fx.Lifecycle, log logIn, opts []O) (C, error) {
	var zero C
	l, err := log.get()
	if err != nil {
		return zero, err
	}
	c, err := s.newC(append([]O{s.withLogger(l)}, opts...)...)
	if err != nil {
		return zero, err
	}
	lifecycle.Register(lc, namedSignal{kind: s.kind, c: c})
	return c, nil
}
