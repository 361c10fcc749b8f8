package otelcore

import (
	"context"
	"errors"
	"io"
	"os"
	"reflect"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Provider is a signal's SDK provider, as the shared lifecycle sees it.
type Provider interface {
	Shutdown(ctx context.Context) error
}

type state int

const (
	stateNew state = iota
	stateOpen
	stateClosed
)

// Component is the half of a metrics or tracing component that both
// share: its name, logger and console, its resolved exporter and export
// settings, and the open-once, close-with-a-bounded-flush life.
type Component struct {
	Sig      *Signal
	Name     string
	Log      *zap.Logger
	Console  io.Writer
	Exporter string // resolved: never auto
	Export   Export // resolved: defaults filled

	// Mu guards the component's state and provider, and whatever the
	// signal keeps beside them.
	Mu       sync.Mutex
	state    state
	provider Provider
}

// newComponent checks the name and resolves cfg (a *Config) in place, the
// signal's own fields checked before.
func (s *Signal) newComponent(name string, log *zap.Logger, console io.Writer, cfg any, src map[string]string) (*Component, error) {
	if name == "" {
		return nil, &ConfigError{Signal: s.Name, Setting: s.Name + ".WithName", Field: "name", Reason: "the component name is empty"}
	}
	if err := s.Resolve(cfg, src); err != nil {
		return nil, err
	}
	c := &Component{Sig: s, Name: name, Log: log, Console: console,
		Exporter: reflect.ValueOf(cfg).Elem().FieldByName("Exporter").String(), Export: CloneExport(*exportOf(cfg))}
	if c.Log == nil {
		c.Log = defaultLogger()
	}
	c.Log = c.Log.Named("svc." + s.Name).With(zap.String("component", c.Name))
	if c.Console == nil {
		c.Console = os.Stdout
	}
	return c, nil
}

// ShutdownTimeout is the bound on the final flush; 0 when the component is
// inactive and so flushes nothing.
func (c *Component) ShutdownTimeout() time.Duration {
	if c.Exporter == "none" {
		return 0
	}
	return c.Export.ShutdownTimeout
}

// Open builds the provider and installs it, once: a second call is
// refused. With exporter none it builds and installs nothing.
func (c *Component) Open(ctx context.Context, build func(context.Context) (Provider, error), install func(Provider)) error {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	if c.state != stateNew {
		return errors.New(c.Sig.Name + ": the component was already opened; build a new one per app")
	}
	if c.Exporter != "none" {
		p, err := build(ctx)
		if err != nil {
			return err
		}
		c.provider = p
		install(p)
	}
	c.state = stateOpen
	return nil
}

// Close uninstalls the provider (uninstall runs with Mu held), then shuts
// it down, flushing within the shutdown timeout (or ctx's deadline, if
// sooner), then runs after. A flush that runs out is abandoned, and one the
// exporter fails is given up: either way a warning is logged (secrets
// redacted), and Close returns nil, so the app's stop proceeds and a clean
// exit stays clean: the data is lost either way, and an exit status of 1
// would tell an orchestrator that the service itself misbehaved. Close on
// a component never opened, or closed, does nothing.
func (c *Component) Close(ctx context.Context, uninstall, after func()) error {
	c.Mu.Lock()
	if c.state != stateOpen {
		c.Mu.Unlock()
		return nil
	}
	c.state = stateClosed
	if c.provider == nil {
		c.Mu.Unlock()
		return nil
	}
	// Uninstall first, so nothing starts on a provider being shut down.
	uninstall()
	p := c.provider
	c.Mu.Unlock()
	if after != nil {
		defer after()
	}
	sctx, cancel := context.WithTimeout(ctx, c.Export.ShutdownTimeout)
	defer cancel()
	start := time.Now()
	err := p.Shutdown(sctx)
	switch {
	case err == nil:
	case sctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
		c.Log.Warn(c.Sig.Name+" flush abandoned: shutdown_timeout reached; pending "+c.Sig.Pending+" may be dropped",
			zap.String("exporter", c.Exporter),
			zap.Duration("shutdown_timeout", c.Export.ShutdownTimeout),
			zap.Duration("waited", time.Since(start)))
	default:
		c.FlushFailed(RedactExport(err, c.Export))
	}
	return nil
}

// FlushFailed logs the warning of a final flush the exporter failed.
func (c *Component) FlushFailed(err error, fields ...zap.Field) {
	c.Log.Warn(c.Sig.Name+" flush failed; pending "+c.Sig.Pending+" may be dropped",
		append([]zap.Field{zap.String("exporter", c.Exporter)}, append(fields, zap.Error(err))...)...)
}

// Started reports whether Open ran; Mu must be held.
func (c *Component) Started() bool { return c.state != stateNew }

// Live is the provider while the component is open, else nil; Mu must be
// held.
func (c *Component) Live() Provider {
	if c.state != stateOpen {
		return nil
	}
	return c.provider
}

// Provider is the SDK provider: the signal's ErrNotStarted before Open and
// ErrInactive when the exporter resolved to none. After Close it is the
// provider, shut down.
func (c *Component) Provider() (Provider, error) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	switch {
	case c.state == stateNew:
		return nil, c.Sig.ErrNotStarted
	case c.provider == nil:
		return nil, c.Sig.ErrInactive
	}
	return c.provider, nil
}

// Active reports whether the component is open with a provider, that is
// open and not auto-disabled.
func (c *Component) Active() bool {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	return c.state == stateOpen && c.provider != nil
}
