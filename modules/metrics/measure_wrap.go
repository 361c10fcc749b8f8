package metrics

import (
	"context"
)

// The Wrap* functions return fn wrapped in a measurement, so each call
// records <name>.duration, <name>.calls and, with RecordInFlight,
// <name>.active. The base name is Name(...) or, by default, fn's package
// path and name, lowercased and dotted (see funcName).
//
// The name and attributes are fixed at wrap time and the instruments are
// resolved once per component, on the first call after it opens: wrapping
// before any component is open (at package init, in a constructor) is
// fine, calls record into whichever component is active when they run, and
// a call with none active costs one atomic load and allocates nothing. A panic in fn is recorded as outcome=error,
// error.type=panic, and keeps unwinding. Wrapping a nil fn returns nil.
//
// Functions without a context record with context.Background().

func measurementFor(fn any, opts []MeasureOption) *measurement {
	var c measureConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.name == "" {
		c.name = funcName(fn)
	}
	m, err := newMeasurement(c)
	if err != nil {
		handle(err)
	}
	return m
}

// Wrap measures a func().
func Wrap(fn func(), opts ...MeasureOption) func() {
	if fn == nil {
		return nil
	}
	m := measurementFor(fn, opts)
	return func() {
		t := current.Load()
		if t == nil {
			fn()
			return
		}
		c := m.startOn(context.Background(), t)
		done := false
		defer func() {
			if !done {
				c.end(errPanicked{})
			}
		}()
		fn()
		done = true
		c.end(nil)
	}
}

// WrapErr measures a func() error.
func WrapErr(fn func() error, opts ...MeasureOption) func() error {
	if fn == nil {
		return nil
	}
	m := measurementFor(fn, opts)
	return func() error {
		t := current.Load()
		if t == nil {
			return fn()
		}
		c := m.startOn(context.Background(), t)
		done := false
		defer func() {
			if !done {
				c.end(errPanicked{})
			}
		}()
		err := fn()
		done = true
		c.end(err)
		return err
	}
}

// WrapResult measures a func() T.
func WrapResult[T any](fn func() T, opts ...MeasureOption) func() T {
	if fn == nil {
		return nil
	}
	m := measurementFor(fn, opts)
	return func() T {
		t := current.Load()
		if t == nil {
			return fn()
		}
		c := m.startOn(context.Background(), t)
		done := false
		defer func() {
			if !done {
				c.end(errPanicked{})
			}
		}()
		v := fn()
		done = true
		c.end(nil)
		return v
	}
}

// WrapResultErr measures a func() (T, error).
func WrapResultErr[T any](fn func() (T, error), opts ...MeasureOption) func() (T, error) {
	if fn == nil {
		return nil
	}
	m := measurementFor(fn, opts)
	return func() (T, error) {
		t := current.Load()
		if t == nil {
			return fn()
		}
		c := m.startOn(context.Background(), t)
		done := false
		defer func() {
			if !done {
				c.end(errPanicked{})
			}
		}()
		v, err := fn()
		done = true
		c.end(err)
		return v, err
	}
}

// WrapCtx measures a func(context.Context).
func WrapCtx(fn func(context.Context), opts ...MeasureOption) func(context.Context) {
	if fn == nil {
		return nil
	}
	m := measurementFor(fn, opts)
	return func(ctx context.Context) {
		t := current.Load()
		if t == nil {
			fn(ctx)
			return
		}
		c := m.startOn(ctx, t)
		done := false
		defer func() {
			if !done {
				c.end(errPanicked{})
			}
		}()
		fn(ctx)
		done = true
		c.end(nil)
	}
}

// WrapCtxErr measures a func(context.Context) error.
func WrapCtxErr(fn func(context.Context) error, opts ...MeasureOption) func(context.Context) error {
	if fn == nil {
		return nil
	}
	m := measurementFor(fn, opts)
	return func(ctx context.Context) error {
		t := current.Load()
		if t == nil {
			return fn(ctx)
		}
		c := m.startOn(ctx, t)
		done := false
		defer func() {
			if !done {
				c.end(errPanicked{})
			}
		}()
		err := fn(ctx)
		done = true
		c.end(err)
		return err
	}
}

// WrapCtxResult measures a func(context.Context) T.
func WrapCtxResult[T any](fn func(context.Context) T, opts ...MeasureOption) func(context.Context) T {
	if fn == nil {
		return nil
	}
	m := measurementFor(fn, opts)
	return func(ctx context.Context) T {
		t := current.Load()
		if t == nil {
			return fn(ctx)
		}
		c := m.startOn(ctx, t)
		done := false
		defer func() {
			if !done {
				c.end(errPanicked{})
			}
		}()
		v := fn(ctx)
		done = true
		c.end(nil)
		return v
	}
}

// WrapCtxResultErr measures a func(context.Context) (T, error).
func WrapCtxResultErr[T any](fn func(context.Context) (T, error), opts ...MeasureOption) func(context.Context) (T, error) {
	if fn == nil {
		return nil
	}
	m := measurementFor(fn, opts)
	return func(ctx context.Context) (T, error) {
		t := current.Load()
		if t == nil {
			return fn(ctx)
		}
		c := m.startOn(ctx, t)
		done := false
		defer func() {
			if !done {
				c.end(errPanicked{})
			}
		}()
		v, err := fn(ctx)
		done = true
		c.end(err)
		return v, err
	}
}
