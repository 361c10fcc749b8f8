package fxsvc

import (
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

// otelComponent is what fxsvc reads of a signal's component beyond its
// start-line part: the final flush's share of the stop budget.
type otelComponent interface{ ShutdownTimeout() time.Duration }

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
// lifecycle under the name named gives it.
func (s otelSignal[C, O]) buildIn(lc fx.Lifecycle, log logIn, opts []O, named func(C) lifecycle.Component) (C, error) {
	var zero C
	l, err := log.get()
	if err != nil {
		return zero, err
	}
	c, err := s.newC(append([]O{s.withLogger(l)}, opts...)...)
	if err != nil {
		return zero, err
	}
	lifecycle.Register(lc, named(c))
	return c, nil
}
