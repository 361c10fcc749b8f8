package metrics

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// MeasureOption configures a Wrap* wrapper.
type MeasureOption func(*measureConfig)

type measureConfig struct {
	name     string
	inFlight bool
}

// Name sets the base metric name; the default comes from the wrapped
// function (see Wrap).
func Name(name string) MeasureOption { return func(c *measureConfig) { c.name = name } }

// RecordInFlight adds the <name>.active up/down counter: +1 on entry, -1
// on return or panic.
func RecordInFlight() MeasureOption { return func(c *measureConfig) { c.inFlight = true } }

// measurement times and counts calls under one base name:
//
//	<name>.duration  histogram, seconds (unit "s", buckets from 5 ms to 10 s)
//	<name>.calls     counter, outcome=success|error, error.type on failure
//	<name>.active    up/down counter, only with RecordInFlight
//
// It records into the metrics component that is open and active at the
// time of the call (the one the global bridge forwards to); with none it
// records nothing and costs one atomic load. Built once, at wrap time, it
// is used from any goroutine.
type measurement struct {
	name     string
	inFlight bool
	success  []metric.AddOption

	// bound holds the instruments of the target last used: resolved once
	// per component, then each call checks one pointer. Recording through
	// the bridge's instruments instead would re-check per instrument.
	bound atomic.Pointer[measureBinding]

	errMu   sync.Mutex
	errOpts atomic.Pointer[map[reflect.Type][]metric.AddOption] // copy on write
}

type measureBinding struct {
	t        *target
	duration metric.Float64Histogram
	calls    metric.Int64Counter
	active   metric.Int64UpDownCounter
}

func newMeasurement(c measureConfig) (*measurement, error) {
	m := &measurement{
		name:     c.name,
		inFlight: c.inFlight,
		success:  []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("outcome", "success")))},
	}
	if t := current.Load(); t != nil {
		_, err := m.bind(t)
		return m, err
	}
	return m, nil
}

// binding returns the instruments on t, resolving them on first use.
func (m *measurement) binding(t *target) *measureBinding {
	if b := m.bound.Load(); b != nil && b.t == t {
		return b
	}
	b, err := m.bind(t)
	if err != nil {
		handle(err)
	}
	return b
}

func (m *measurement) bind(t *target) (*measureBinding, error) {
	mt := t.mp.Meter(scopeName)
	b := &measureBinding{t: t}
	var errs [3]error
	b.duration, errs[0] = mt.Float64Histogram(m.name+".duration", metric.WithUnit("s"),
		metric.WithDescription("Wall-clock duration of "+m.name+" calls."),
		metric.WithExplicitBucketBoundaries(secondsBuckets...))
	b.calls, errs[1] = mt.Int64Counter(m.name+".calls", metric.WithUnit("{call}"),
		metric.WithDescription("Calls of "+m.name+" by outcome."))
	if m.inFlight {
		b.active, errs[2] = mt.Int64UpDownCounter(m.name+".active", metric.WithUnit("{call}"),
			metric.WithDescription("Calls of "+m.name+" in flight."))
	}
	// The SDK returns usable instruments beside most errors; fill any gap
	// with no-ops so recording never dereferences nil.
	var nop noop.Meter
	if b.duration == nil {
		b.duration, _ = nop.Float64Histogram("")
	}
	if b.calls == nil {
		b.calls, _ = nop.Int64Counter("")
	}
	if m.inFlight && b.active == nil {
		b.active, _ = nop.Int64UpDownCounter("")
	}
	m.bound.Store(b)
	return b, errors.Join(errs[:]...)
}

// call is one timed call, begun by startOn and finished by end. It is a
// value: starting and ending a call allocates nothing.
type call struct {
	b     *measureBinding
	m     *measurement
	ctx   context.Context
	start time.Time
}

func (m *measurement) startOn(ctx context.Context, t *target) call {
	b := m.binding(t)
	if m.inFlight {
		b.active.Add(ctx, 1)
	}
	return call{b: b, m: m, ctx: ctx, start: time.Now()}
}

// end records the call: its duration, and a call with outcome success (err
// nil) or error with error.type set to err's type name. It records into the
// component startOn saw, even if another became current meanwhile, so the
// in-flight count of each component balances.
func (c call) end(err error) {
	b := c.b
	if b == nil {
		return
	}
	b.duration.Record(c.ctx, time.Since(c.start).Seconds())
	if err == nil {
		b.calls.Add(c.ctx, 1, c.m.success...)
	} else {
		b.calls.Add(c.ctx, 1, c.m.errorOpts(err)...)
	}
	if c.m.inFlight {
		b.active.Add(c.ctx, -1)
	}
}

func (m *measurement) errorOpts(err error) []metric.AddOption {
	t := reflect.TypeOf(err)
	if mp := m.errOpts.Load(); mp != nil {
		if o, ok := (*mp)[t]; ok {
			return o
		}
	}
	m.errMu.Lock()
	defer m.errMu.Unlock()
	next := map[reflect.Type][]metric.AddOption{}
	if mp := m.errOpts.Load(); mp != nil {
		if o, ok := (*mp)[t]; ok {
			return o
		}
		maps.Copy(next, *mp)
	}
	o := []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(
		attribute.String("outcome", "error"),
		attribute.String("error.type", errorType(err)),
	))}
	next[t] = o
	m.errOpts.Store(&next)
	return o
}

// errPanicked stands for a panic passing through a wrapped function.
type errPanicked struct{}

func (errPanicked) Error() string { return "panic" }

// errorType names err's dynamic Go type, package-qualified and without a
// pointer star ("fs.PathError", "context.deadlineExceededError"). It looks
// through fmt.Errorf's single-%w wrapper, which names nothing about the
// failure. A panic passing through a wrapper is "panic". The value never
// carries the error's message, so it is safe as a metric attribute.
func errorType(err error) string {
	if _, ok := err.(errPanicked); ok {
		return "panic"
	}
	for {
		t := reflect.TypeOf(err)
		if t == nil {
			return "nil"
		}
		if t.String() == "*fmt.wrapError" {
			if inner := errors.Unwrap(err); inner != nil {
				err = inner
				continue
			}
		}
		return strings.TrimLeft(t.String(), "*")
	}
}
