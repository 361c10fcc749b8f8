package metrics

import (
	"context"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/embedded"
)

func handle(err error) { otel.Handle(err) }

// lazy is a synchronous bridge instrument: it binds to the current target
// on first use after a switch. The hot path is two atomic loads and a
// pointer comparison.
type lazy[I any] struct {
	meter *bridgeMeter
	make  func(metric.Meter) (I, error)
	bound atomic.Pointer[binding[I]]
}

type binding[I any] struct {
	t    *target
	inst I
	ok   bool
}

func (l *lazy[I]) get() (I, bool) {
	t := current.Load()
	if t == nil {
		var zero I
		return zero, false
	}
	if b := l.bound.Load(); b != nil && b.t == t {
		return b.inst, b.ok
	}
	inst, _ := l.bind(t)
	return inst, any(inst) != nil
}

func (l *lazy[I]) bind(t *target) (I, error) {
	inst, err := l.make(l.meter.on(t))
	if err != nil {
		handle(err)
	}
	// Two goroutines may bind at once; the SDK returns the same instrument
	// for the same name, so either store is right. A failed bind is stored
	// too, so the error is reported once per target, not per call.
	l.bound.Store(&binding[I]{t: t, inst: inst, ok: any(inst) != nil})
	return inst, err
}

// prime binds at creation when a target is current, so that creation
// errors (a bad name) reach the caller as with a plain SDK meter.
func (l *lazy[I]) prime() error {
	if t := current.Load(); t != nil {
		_, err := l.bind(t)
		return err
	}
	return nil
}

func newLazy[I any](m *bridgeMeter, mk func(metric.Meter) (I, error)) lazy[I] {
	return lazy[I]{meter: m, make: mk}
}

type i64Counter struct {
	embedded.Int64Counter
	lazy[metric.Int64Counter]
}

func (c *i64Counter) Add(ctx context.Context, v int64, o ...metric.AddOption) {
	if i, ok := c.get(); ok {
		i.Add(ctx, v, o...)
	}
}
func (c *i64Counter) Enabled(ctx context.Context) bool { i, ok := c.get(); return ok && i.Enabled(ctx) }

type f64Counter struct {
	embedded.Float64Counter
	lazy[metric.Float64Counter]
}

func (c *f64Counter) Add(ctx context.Context, v float64, o ...metric.AddOption) {
	if i, ok := c.get(); ok {
		i.Add(ctx, v, o...)
	}
}
func (c *f64Counter) Enabled(ctx context.Context) bool { i, ok := c.get(); return ok && i.Enabled(ctx) }

type i64UpDown struct {
	embedded.Int64UpDownCounter
	lazy[metric.Int64UpDownCounter]
}

func (c *i64UpDown) Add(ctx context.Context, v int64, o ...metric.AddOption) {
	if i, ok := c.get(); ok {
		i.Add(ctx, v, o...)
	}
}
func (c *i64UpDown) Enabled(ctx context.Context) bool { i, ok := c.get(); return ok && i.Enabled(ctx) }

type f64UpDown struct {
	embedded.Float64UpDownCounter
	lazy[metric.Float64UpDownCounter]
}

func (c *f64UpDown) Add(ctx context.Context, v float64, o ...metric.AddOption) {
	if i, ok := c.get(); ok {
		i.Add(ctx, v, o...)
	}
}
func (c *f64UpDown) Enabled(ctx context.Context) bool { i, ok := c.get(); return ok && i.Enabled(ctx) }

type i64Histogram struct {
	embedded.Int64Histogram
	lazy[metric.Int64Histogram]
}

func (c *i64Histogram) Record(ctx context.Context, v int64, o ...metric.RecordOption) {
	if i, ok := c.get(); ok {
		i.Record(ctx, v, o...)
	}
}
func (c *i64Histogram) Enabled(ctx context.Context) bool {
	i, ok := c.get()
	return ok && i.Enabled(ctx)
}

type f64Histogram struct {
	embedded.Float64Histogram
	lazy[metric.Float64Histogram]
}

func (c *f64Histogram) Record(ctx context.Context, v float64, o ...metric.RecordOption) {
	if i, ok := c.get(); ok {
		i.Record(ctx, v, o...)
	}
}
func (c *f64Histogram) Enabled(ctx context.Context) bool {
	i, ok := c.get()
	return ok && i.Enabled(ctx)
}

type i64Gauge struct {
	embedded.Int64Gauge
	lazy[metric.Int64Gauge]
}

func (c *i64Gauge) Record(ctx context.Context, v int64, o ...metric.RecordOption) {
	if i, ok := c.get(); ok {
		i.Record(ctx, v, o...)
	}
}
func (c *i64Gauge) Enabled(ctx context.Context) bool { i, ok := c.get(); return ok && i.Enabled(ctx) }

type f64Gauge struct {
	embedded.Float64Gauge
	lazy[metric.Float64Gauge]
}

func (c *f64Gauge) Record(ctx context.Context, v float64, o ...metric.RecordOption) {
	if i, ok := c.get(); ok {
		i.Record(ctx, v, o...)
	}
}
func (c *f64Gauge) Enabled(ctx context.Context) bool { i, ok := c.get(); return ok && i.Enabled(ctx) }

func (m *bridgeMeter) Int64Counter(name string, opts ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	c := &i64Counter{lazy: newLazy(m, func(t metric.Meter) (metric.Int64Counter, error) { return t.Int64Counter(name, opts...) })}
	return c, c.prime()
}

func (m *bridgeMeter) Float64Counter(name string, opts ...metric.Float64CounterOption) (metric.Float64Counter, error) {
	c := &f64Counter{lazy: newLazy(m, func(t metric.Meter) (metric.Float64Counter, error) { return t.Float64Counter(name, opts...) })}
	return c, c.prime()
}

func (m *bridgeMeter) Int64UpDownCounter(name string, opts ...metric.Int64UpDownCounterOption) (metric.Int64UpDownCounter, error) {
	c := &i64UpDown{lazy: newLazy(m, func(t metric.Meter) (metric.Int64UpDownCounter, error) { return t.Int64UpDownCounter(name, opts...) })}
	return c, c.prime()
}

func (m *bridgeMeter) Float64UpDownCounter(name string, opts ...metric.Float64UpDownCounterOption) (metric.Float64UpDownCounter, error) {
	c := &f64UpDown{lazy: newLazy(m, func(t metric.Meter) (metric.Float64UpDownCounter, error) {
		return t.Float64UpDownCounter(name, opts...)
	})}
	return c, c.prime()
}

func (m *bridgeMeter) Int64Histogram(name string, opts ...metric.Int64HistogramOption) (metric.Int64Histogram, error) {
	c := &i64Histogram{lazy: newLazy(m, func(t metric.Meter) (metric.Int64Histogram, error) { return t.Int64Histogram(name, opts...) })}
	return c, c.prime()
}

func (m *bridgeMeter) Float64Histogram(name string, opts ...metric.Float64HistogramOption) (metric.Float64Histogram, error) {
	c := &f64Histogram{lazy: newLazy(m, func(t metric.Meter) (metric.Float64Histogram, error) { return t.Float64Histogram(name, opts...) })}
	return c, c.prime()
}

func (m *bridgeMeter) Int64Gauge(name string, opts ...metric.Int64GaugeOption) (metric.Int64Gauge, error) {
	c := &i64Gauge{lazy: newLazy(m, func(t metric.Meter) (metric.Int64Gauge, error) { return t.Int64Gauge(name, opts...) })}
	return c, c.prime()
}

func (m *bridgeMeter) Float64Gauge(name string, opts ...metric.Float64GaugeOption) (metric.Float64Gauge, error) {
	c := &f64Gauge{lazy: newLazy(m, func(t metric.Meter) (metric.Float64Gauge, error) { return t.Float64Gauge(name, opts...) })}
	return c, c.prime()
}
