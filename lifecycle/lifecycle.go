// Package lifecycle is the open/close contract every svc component
// follows on fx's lifecycle hooks, for an app's own components too: wrap
// a database pool or a queue consumer in a [Component], [Register] it, and
// it opens and closes as svc's own do.
//
//   - A component opens in fx's OnStart, in the order components were
//     registered, and closes in OnStop, in reverse order (fx runs stop
//     hooks last-in first-out): what opened last, and may use what opened
//     before it, closes first.
//   - A failed Open stops the start: fx closes what already opened, in
//     reverse order, and Start returns an [*Error] naming the component
//     ("svc: open orders-db: …"), so the log says which part failed and
//     not only what went wrong. A failed Close is an *Error too; the
//     other components still close.
//   - Close runs only after a successful Open, with fx's stop deadline.
//   - A kind of component the app may hold once (one error format, one
//     gate, one Redis) is claimed with [Singleton]: fx.New fails with a
//     [*SingletonError] naming both options that registered it, before
//     anything starts.
//
// svc's own components (the verifier, the OAuth client, metrics, tracing,
// Redis) are registered this way; fxsvc and fxredis name them in their
// errors by the option the app wrote.
package lifecycle

import (
	"context"
	"fmt"

	"go.uber.org/fx"
)

// Component is a part of the service that holds resources for the life of
// the app.
type Component interface {
	// Name identifies the component in errors and logs, e.g. "metrics/default".
	Name() string
	// Open acquires the component's resources. The context carries fx's start
	// deadline; a component must not keep it past Open.
	Open(ctx context.Context) error
	// Close releases what Open acquired. It is called only after a successful
	// Open, and its context carries fx's stop deadline.
	Close(ctx context.Context) error
}

// Error says which component failed to open or close: fx's Start and Stop
// return it (wrapped), and errors.As finds it.
type Error struct {
	Op        string // "open" or "close"
	Component string
	Err       error
}

func (e *Error) Error() string {
	return fmt.Sprintf("svc: %s %s: %v", e.Op, e.Component, e.Err)
}

// Unwrap returns the component's own error.
func (e *Error) Unwrap() error { return e.Err }

// Register appends c's Open and Close to the fx lifecycle. Because fx runs
// start hooks in append order and stop hooks in reverse, components open in
// registration order and close in reverse. Their errors are [*Error]s
// naming c.
func Register(lc fx.Lifecycle, c Component) {
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if err := c.Open(ctx); err != nil {
				return &Error{Op: "open", Component: c.Name(), Err: err}
			}
			return nil
		},
		OnStop: func(ctx context.Context) error {
			if err := c.Close(ctx); err != nil {
				return &Error{Op: "close", Component: c.Name(), Err: err}
			}
			return nil
		},
	})
}
