package metrics

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// MeasureOption configures a Measurement or a Wrap* wrapper.
type MeasureOption func(*measureConfig)

type measureConfig struct {
	name     string
	inFlight bool
}

// Name sets the base metric name; the default comes from the wrapped
// function (see Wrap). With NewMeasurement it is required.
func Name(name string) MeasureOption { return func(c *measureConfig) { c.name = name } }

// RecordInFlight adds the <name>.active up/down counter: +1 on entry, -1
// on return or panic.
func RecordInFlight() MeasureOption { return func(c *measureConfig) { c.inFlight = true } }

// Measurement times and counts calls under one base name:
//
//	<name>.duration  histogram, seconds (unit "s")
//	<name>.calls     counter, outcome=success|error, error.type on failure
//	<name>.active    up/down counter, only with RecordInFlight
//
// It records through the process-global bridge into the metrics component
// that is open and active at the time of the call; with none it records
// nothing and costs one atomic load. Build it once (at init or wrap time),
// use it from any goroutine.
type Measurement struct {
	name     string
	inFlight bool

	duration metric.Float64Histogram
	calls    metric.Int64Counter
	active   metric.Int64UpDownCounter

	success []metric.AddOption
	byType  sync.Map // reflect.Type → []metric.AddOption
}

// NewMeasurement builds a Measurement. Name(...) is required here. Errors
// are the OpenTelemetry SDK's for a name it refuses (when a component is
// active at the time; otherwise reported through otel.Handle on first use).
func NewMeasurement(opts ...MeasureOption) (*Measurement, error) {
	var c measureConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.name == "" {
		return nil, &Error{Msg: "metrics: NewMeasurement needs metrics.Name(...)"}
	}
	return newMeasurement(c)
}

func newMeasurement(c measureConfig) (*Measurement, error) {
	mt := theBridge.Meter(Scope)
	m := &Measurement{
		name:     c.name,
		inFlight: c.inFlight,
		success:  []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("outcome", "success")))},
	}
	var errs []error
	var err error
	m.duration, err = mt.Float64Histogram(c.name+".duration", metric.WithUnit("s"),
		metric.WithDescription("Wall-clock duration of "+c.name+" calls."),
		metric.WithExplicitBucketBoundaries(secondsBuckets...))
	errs = append(errs, err)
	m.calls, err = mt.Int64Counter(c.name+".calls", metric.WithUnit("{call}"),
		metric.WithDescription("Calls of "+c.name+" by outcome."))
	errs = append(errs, err)
	if c.inFlight {
		m.active, err = mt.Int64UpDownCounter(c.name+".active", metric.WithUnit("{call}"),
			metric.WithDescription("Calls of "+c.name+" in flight."))
		errs = append(errs, err)
	}
	return m, errors.Join(errs...)
}

// BaseName returns the base metric name.
func (m *Measurement) BaseName() string { return m.name }

// Call is one timed call, returned by Start and finished by End. It is a
// value: starting and ending a call allocates nothing.
type Call struct {
	m     *Measurement
	ctx   context.Context
	start time.Time
}

// Start begins a call. With no active component it returns a Call whose
// End does nothing.
func (m *Measurement) Start(ctx context.Context) Call {
	if current.Load() == nil {
		return Call{}
	}
	if m.inFlight {
		m.active.Add(ctx, 1)
	}
	return Call{m: m, ctx: ctx, start: time.Now()}
}

// End records the call: its duration, and a call with outcome success (err
// nil) or error with error.type set to err's type name.
func (c Call) End(err error) {
	m := c.m
	if m == nil {
		return
	}
	m.duration.Record(c.ctx, time.Since(c.start).Seconds())
	if err == nil {
		m.calls.Add(c.ctx, 1, m.success...)
	} else {
		m.calls.Add(c.ctx, 1, m.errorOpts(err)...)
	}
	if m.inFlight {
		m.active.Add(c.ctx, -1)
	}
}

func (m *Measurement) errorOpts(err error) []metric.AddOption {
	t := reflect.TypeOf(err)
	if v, ok := m.byType.Load(t); ok {
		return v.([]metric.AddOption)
	}
	opts := []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(
		attribute.String("outcome", "error"),
		attribute.String("error.type", ErrorType(err)),
	))}
	m.byType.Store(t, opts)
	return opts
}

// errPanicked stands for a panic passing through a wrapped function.
type errPanicked struct{}

func (errPanicked) Error() string { return "panic" }

// ErrorType names err's dynamic Go type, package-qualified and without a
// pointer star ("fs.PathError", "context.deadlineExceededError"). It looks
// through fmt.Errorf's single-%w wrapper, which names nothing about the
// failure. A panic passing through a wrapper is "panic". The value never
// carries the error's message, so it is safe as a metric attribute.
func ErrorType(err error) string {
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
