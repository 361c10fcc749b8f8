// Package lifecycle is the open/close contract of svc's components on top
// of fx lifecycle hooks. It is internal: apps meet it only through the
// errors fx.New and Start return, which name the component.
//
// A component is opened when the fx app starts and closed when it stops.
// Components open in the order they were registered and close in reverse
// order (fx runs OnStop hooks last-in first-out). An error from Open stops
// start-up and names the component, so a log line says which part of the
// service failed rather than only what went wrong.
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

// Error says which component failed to open or close.
type Error struct {
	Op        string // "open" or "close"
	Component string
	Err       error
}

func (e *Error) Error() string {
	return fmt.Sprintf("svc: %s %s: %v", e.Op, e.Component, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Register appends c's Open and Close to the fx lifecycle. Because fx runs
// start hooks in append order and stop hooks in reverse, components open in
// registration order and close in reverse.
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
