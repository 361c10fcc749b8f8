package metrics

import (
	"context"
	"errors"
	"slices"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/embedded"
)

// bridge is the meter provider installed globally. See global.go for why.
type bridge struct {
	embedded.MeterProvider

	mu     sync.Mutex
	meters map[meterKey]*bridgeMeter
}

type meterKey struct {
	name, version, schema string
	attrs                 attribute.Distinct
}

func newBridge() *bridge { return &bridge{meters: map[meterKey]*bridgeMeter{}} }

// Meter returns the bridge meter of a scope, one per scope.
func (b *bridge) Meter(name string, opts ...metric.MeterOption) metric.Meter {
	cfg := metric.NewMeterConfig(opts...)
	attrs := cfg.InstrumentationAttributes()
	key := meterKey{name, cfg.InstrumentationVersion(), cfg.SchemaURL(), attrs.Equivalent()}
	b.mu.Lock()
	defer b.mu.Unlock()
	if m, ok := b.meters[key]; ok {
		return m
	}
	m := &bridgeMeter{name: name, opts: opts}
	b.meters[key] = m
	return m
}

// switchTo makes t current and rebinds what must be bound before the next
// collection: observable instruments and callbacks. Synchronous
// instruments rebind on their next use. Called with installer.Mu held.
func (b *bridge) switchTo(t *target) {
	current.Store(t)
	b.mu.Lock()
	meters := make([]*bridgeMeter, 0, len(b.meters))
	for _, m := range b.meters {
		meters = append(meters, m)
	}
	b.mu.Unlock()
	for _, m := range meters {
		m.rebind(t)
	}
}

// bridgeMeter forwards one scope to the current target's meter.
type bridgeMeter struct {
	embedded.Meter
	name string
	opts []metric.MeterOption

	mu    sync.Mutex
	async []*asyncInst
	regs  []*bridgeRegistration
}

func (m *bridgeMeter) on(t *target) metric.Meter { return t.mp.Meter(m.name, m.opts...) }

func (m *bridgeMeter) rebind(t *target) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, a := range m.async {
		_ = a.bind(t) // reported through otel.Handle by bind
	}
	for _, r := range m.regs {
		r.bind(t)
	}
}

// addAsync records a and binds it to the current target, under m.mu so a
// concurrent switch cannot miss it.
func (m *bridgeMeter) addAsync(a *asyncInst) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.async = append(m.async, a)
	return a.bind(current.Load())
}

var errForeignInstrument = errors.New("metrics: RegisterCallback was given an instrument not created by the global meter provider's meter")

// RegisterCallback registers f for instruments made by this meter, on the
// current target now and on every later one.
func (m *bridgeMeter) RegisterCallback(f metric.Callback, insts ...metric.Observable) (metric.Registration, error) {
	own := make([]*asyncInst, 0, len(insts))
	for _, i := range insts {
		b, ok := i.(bridged)
		if !ok || b.asyncImpl().meter != m {
			return nil, errForeignInstrument
		}
		own = append(own, b.asyncImpl())
	}
	r := &bridgeRegistration{meter: m, f: f, insts: own}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.regs = append(m.regs, r)
	r.bind(current.Load())
	return r, nil
}

// bridgeRegistration is a callback registered through the bridge; it is
// registered again with each new target.
type bridgeRegistration struct {
	embedded.Registration
	meter *bridgeMeter
	f     metric.Callback
	insts []*asyncInst

	mu   sync.Mutex
	reg  metric.Registration
	dead bool
}

func (r *bridgeRegistration) bind(t *target) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reg != nil {
		_ = r.reg.Unregister()
		r.reg = nil
	}
	if r.dead || t == nil {
		return
	}
	bound := make([]metric.Observable, 0, len(r.insts))
	for _, a := range r.insts {
		if o, ok := a.on(t); ok {
			bound = append(bound, o)
		}
	}
	f := r.f
	reg, err := r.meter.on(t).RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		return f(ctx, translator{o: o, t: t})
	}, bound...)
	if err != nil {
		handle(err)
		return
	}
	r.reg = reg
}

// Unregister stops the callback on the current and every later target.
func (r *bridgeRegistration) Unregister() error {
	m := r.meter
	m.mu.Lock()
	m.regs = slices.DeleteFunc(m.regs, func(x *bridgeRegistration) bool { return x == r })
	m.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dead = true
	if r.reg == nil {
		return nil
	}
	err := r.reg.Unregister()
	r.reg = nil
	return err
}

// translator hands a callback's observations of bridge instruments to the
// target's own instruments. It takes no lock: the SDK may hold its own
// while it runs callbacks.
type translator struct {
	embedded.Observer
	o metric.Observer
	t *target
}

func (x translator) ObserveInt64(obs metric.Int64Observable, v int64, opts ...metric.ObserveOption) {
	if b, ok := obs.(bridged); ok {
		if inst, ok := b.asyncImpl().on(x.t); ok {
			x.o.ObserveInt64(inst.(metric.Int64Observable), v, opts...)
		}
		return
	}
	x.o.ObserveInt64(obs, v, opts...)
}

func (x translator) ObserveFloat64(obs metric.Float64Observable, v float64, opts ...metric.ObserveOption) {
	if b, ok := obs.(bridged); ok {
		if inst, ok := b.asyncImpl().on(x.t); ok {
			x.o.ObserveFloat64(inst.(metric.Float64Observable), v, opts...)
		}
		return
	}
	x.o.ObserveFloat64(obs, v, opts...)
}
