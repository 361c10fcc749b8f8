package metrics

import (
	"context"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/embedded"
)

// asyncInst is an observable bridge instrument. Unlike synchronous ones it
// binds eagerly, on every switch, because the SDK calls its callbacks at
// collection and nothing on our side would trigger a lazy bind. Inline
// callbacks (metric.WithInt64Callback, ...) are registered as a separate,
// unregistrable callback per target, so a component that stops being
// current stops observing.
type asyncInst struct {
	meter  *bridgeMeter
	create func(metric.Meter) (metric.Observable, error) // without callbacks
	// observe runs the inline callbacks against inst; nil when none.
	observe func(ctx context.Context, o metric.Observer, inst metric.Observable) error

	mu    sync.Mutex
	bound atomic.Pointer[asyncBinding]
}

type asyncBinding struct {
	t    *target
	inst metric.Observable
	reg  metric.Registration
}

// bridged is implemented by the bridge's observable instruments.
type bridged interface{ asyncImpl() *asyncInst }

func (a *asyncInst) asyncImpl() *asyncInst { return a }

// on returns the instrument bound to t. Lock-free: callbacks call it.
func (a *asyncInst) on(t *target) (metric.Observable, bool) {
	b := a.bound.Load()
	if b == nil || b.t != t || b.inst == nil {
		return nil, false
	}
	return b.inst, true
}

func (a *asyncInst) bind(t *target) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	old := a.bound.Load()
	if old != nil && old.t == t {
		return nil
	}
	if old != nil && old.reg != nil {
		_ = old.reg.Unregister()
	}
	if t == nil {
		a.bound.Store(nil)
		return nil
	}
	mt := a.meter.on(t)
	inst, err := a.create(mt)
	if err != nil {
		handle(err)
	}
	b := &asyncBinding{t: t, inst: inst}
	if inst != nil && a.observe != nil {
		reg, rerr := mt.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
			return a.observe(ctx, o, inst)
		}, inst)
		if rerr != nil {
			handle(rerr)
		}
		b.reg = reg
		if err == nil {
			err = rerr
		}
	}
	a.bound.Store(b)
	return err
}

// Observers handed to inline callbacks: they route Observe to the
// target's instrument through the target's observer.
type i64Observer struct {
	embedded.Int64Observer
	o    metric.Observer
	inst metric.Int64Observable
}

func (x i64Observer) Observe(v int64, opts ...metric.ObserveOption) {
	x.o.ObserveInt64(x.inst, v, opts...)
}

type f64Observer struct {
	embedded.Float64Observer
	o    metric.Observer
	inst metric.Float64Observable
}

func (x f64Observer) Observe(v float64, opts ...metric.ObserveOption) {
	x.o.ObserveFloat64(x.inst, v, opts...)
}

func int64Callbacks(cbs []metric.Int64Callback) func(context.Context, metric.Observer, metric.Observable) error {
	if len(cbs) == 0 {
		return nil
	}
	return func(ctx context.Context, o metric.Observer, inst metric.Observable) error {
		obs := i64Observer{o: o, inst: inst.(metric.Int64Observable)}
		for _, cb := range cbs {
			if err := cb(ctx, obs); err != nil {
				return err
			}
		}
		return nil
	}
}

func float64Callbacks(cbs []metric.Float64Callback) func(context.Context, metric.Observer, metric.Observable) error {
	if len(cbs) == 0 {
		return nil
	}
	return func(ctx context.Context, o metric.Observer, inst metric.Observable) error {
		obs := f64Observer{o: o, inst: inst.(metric.Float64Observable)}
		for _, cb := range cbs {
			if err := cb(ctx, obs); err != nil {
				return err
			}
		}
		return nil
	}
}

// The six observable kinds. The embedded interface values stay nil: they
// only lend the marker methods the metric API requires.
type i64ObsCounter struct {
	metric.Int64ObservableCounter
	*asyncInst
}
type i64ObsUpDown struct {
	metric.Int64ObservableUpDownCounter
	*asyncInst
}
type i64ObsGauge struct {
	metric.Int64ObservableGauge
	*asyncInst
}
type f64ObsCounter struct {
	metric.Float64ObservableCounter
	*asyncInst
}
type f64ObsUpDown struct {
	metric.Float64ObservableUpDownCounter
	*asyncInst
}
type f64ObsGauge struct {
	metric.Float64ObservableGauge
	*asyncInst
}

func (m *bridgeMeter) newAsync(create func(metric.Meter) (metric.Observable, error), observe func(context.Context, metric.Observer, metric.Observable) error) *asyncInst {
	return &asyncInst{meter: m, create: create, observe: observe}
}

func (m *bridgeMeter) Int64ObservableCounter(name string, opts ...metric.Int64ObservableCounterOption) (metric.Int64ObservableCounter, error) {
	c := metric.NewInt64ObservableCounterConfig(opts...)
	a := m.newAsync(func(t metric.Meter) (metric.Observable, error) {
		return t.Int64ObservableCounter(name, metric.WithDescription(c.Description()), metric.WithUnit(c.Unit()))
	}, int64Callbacks(c.Callbacks()))
	return i64ObsCounter{asyncInst: a}, m.addAsync(a)
}

func (m *bridgeMeter) Int64ObservableUpDownCounter(name string, opts ...metric.Int64ObservableUpDownCounterOption) (metric.Int64ObservableUpDownCounter, error) {
	c := metric.NewInt64ObservableUpDownCounterConfig(opts...)
	a := m.newAsync(func(t metric.Meter) (metric.Observable, error) {
		return t.Int64ObservableUpDownCounter(name, metric.WithDescription(c.Description()), metric.WithUnit(c.Unit()))
	}, int64Callbacks(c.Callbacks()))
	return i64ObsUpDown{asyncInst: a}, m.addAsync(a)
}

func (m *bridgeMeter) Int64ObservableGauge(name string, opts ...metric.Int64ObservableGaugeOption) (metric.Int64ObservableGauge, error) {
	c := metric.NewInt64ObservableGaugeConfig(opts...)
	a := m.newAsync(func(t metric.Meter) (metric.Observable, error) {
		return t.Int64ObservableGauge(name, metric.WithDescription(c.Description()), metric.WithUnit(c.Unit()))
	}, int64Callbacks(c.Callbacks()))
	return i64ObsGauge{asyncInst: a}, m.addAsync(a)
}

func (m *bridgeMeter) Float64ObservableCounter(name string, opts ...metric.Float64ObservableCounterOption) (metric.Float64ObservableCounter, error) {
	c := metric.NewFloat64ObservableCounterConfig(opts...)
	a := m.newAsync(func(t metric.Meter) (metric.Observable, error) {
		return t.Float64ObservableCounter(name, metric.WithDescription(c.Description()), metric.WithUnit(c.Unit()))
	}, float64Callbacks(c.Callbacks()))
	return f64ObsCounter{asyncInst: a}, m.addAsync(a)
}

func (m *bridgeMeter) Float64ObservableUpDownCounter(name string, opts ...metric.Float64ObservableUpDownCounterOption) (metric.Float64ObservableUpDownCounter, error) {
	c := metric.NewFloat64ObservableUpDownCounterConfig(opts...)
	a := m.newAsync(func(t metric.Meter) (metric.Observable, error) {
		return t.Float64ObservableUpDownCounter(name, metric.WithDescription(c.Description()), metric.WithUnit(c.Unit()))
	}, float64Callbacks(c.Callbacks()))
	return f64ObsUpDown{asyncInst: a}, m.addAsync(a)
}

func (m *bridgeMeter) Float64ObservableGauge(name string, opts ...metric.Float64ObservableGaugeOption) (metric.Float64ObservableGauge, error) {
	c := metric.NewFloat64ObservableGaugeConfig(opts...)
	a := m.newAsync(func(t metric.Meter) (metric.Observable, error) {
		return t.Float64ObservableGauge(name, metric.WithDescription(c.Description()), metric.WithUnit(c.Unit()))
	}, float64Callbacks(c.Callbacks()))
	return f64ObsGauge{asyncInst: a}, m.addAsync(a)
}
