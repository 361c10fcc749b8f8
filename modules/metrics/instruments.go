package metrics

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// scopeName is the instrumentation scope of the instruments made by Counter,
// Histogram, UpDownCounter and Gauge, and of the measure wrappers.
const scopeName = "github.com/svckit/svc/modules/metrics"

// InstrumentOption sets an instrument's unit or description.
type InstrumentOption func(*instrumentConfig)

type instrumentConfig struct {
	unit, description string
	buckets           []float64
}

// secondsBuckets are the histogram bucket boundaries for durations in
// seconds, those OpenTelemetry's semantic conventions give for request
// durations. The SDK's own default (0, 5, 10, 25, ... 10000) suits
// milliseconds: a duration in seconds would land in one bucket.
var secondsBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// WithBuckets sets a histogram's bucket boundaries (ascending).
func WithBuckets(bounds ...float64) InstrumentOption {
	return func(c *instrumentConfig) { c.buckets = bounds }
}

// WithUnit sets the UCUM unit, e.g. "s", "By", "{request}".
func WithUnit(unit string) InstrumentOption { return func(c *instrumentConfig) { c.unit = unit } }

// WithDescription sets the instrument's description (the Prometheus HELP).
func WithDescription(d string) InstrumentOption {
	return func(c *instrumentConfig) { c.description = d }
}

func applyInstrumentOpts(opts []InstrumentOption) instrumentConfig {
	var c instrumentConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

func instrumentOpts(opts []InstrumentOption) (metric.InstrumentOption, metric.InstrumentOption) {
	c := applyInstrumentOpts(opts)
	return metric.WithUnit(c.unit), metric.WithDescription(c.description)
}

// Meter returns the component's meter for scope name, the same value for
// the same name. Before Open it returns ErrNotStarted. When the component
// is inactive, or after Close, it returns a no-op meter and no error.
func (m *Metrics) Meter(name string) (metric.Meter, error) {
	m.c.Mu.Lock()
	defer m.c.Mu.Unlock()
	if !m.c.Started() {
		return nil, ErrNotStarted
	}
	if mt, ok := m.meters[name]; ok {
		return mt, nil
	}
	var mt metric.Meter = noop.NewMeterProvider().Meter(name)
	if p, ok := m.c.Live().(*sdkmetric.MeterProvider); ok {
		mt = p.Meter(name)
	}
	m.meters[name] = mt
	return mt, nil
}

// Counter returns a monotonic int64 counter in the component's scope (github.com/svckit/svc/modules/metrics).
// Errors: ErrNotStarted before Open, or the SDK's for an invalid name.
func (m *Metrics) Counter(name string, opts ...InstrumentOption) (metric.Int64Counter, error) {
	u, d := instrumentOpts(opts)
	return onMeter(m, func(mt metric.Meter) (metric.Int64Counter, error) { return mt.Int64Counter(name, u, d) })
}

// Histogram returns a float64 histogram. With WithUnit("s") and no
// WithBuckets it uses the seconds buckets (5 ms to 10 s); otherwise the SDK's defaults.
func (m *Metrics) Histogram(name string, opts ...InstrumentOption) (metric.Float64Histogram, error) {
	c := applyInstrumentOpts(opts)
	hopts := []metric.Float64HistogramOption{metric.WithUnit(c.unit), metric.WithDescription(c.description)}
	switch {
	case c.buckets != nil:
		hopts = append(hopts, metric.WithExplicitBucketBoundaries(c.buckets...))
	case c.unit == "s":
		hopts = append(hopts, metric.WithExplicitBucketBoundaries(secondsBuckets...))
	}
	return onMeter(m, func(mt metric.Meter) (metric.Float64Histogram, error) { return mt.Float64Histogram(name, hopts...) })
}

// onMeter makes an instrument with mk on the component's meter: before
// Open, ErrNotStarted.
func onMeter[I any](m *Metrics, mk func(metric.Meter) (I, error)) (I, error) {
	mt, err := m.Meter(scopeName)
	if err != nil {
		var none I
		return none, err
	}
	return mk(mt)
}

// UpDownCounter returns an int64 counter that may go down.
func (m *Metrics) UpDownCounter(name string, opts ...InstrumentOption) (metric.Int64UpDownCounter, error) {
	u, d := instrumentOpts(opts)
	return onMeter(m, func(mt metric.Meter) (metric.Int64UpDownCounter, error) { return mt.Int64UpDownCounter(name, u, d) })
}

// Gauge returns a synchronous float64 gauge recording last-set values.
func (m *Metrics) Gauge(name string, opts ...InstrumentOption) (metric.Float64Gauge, error) {
	u, d := instrumentOpts(opts)
	return onMeter(m, func(mt metric.Meter) (metric.Float64Gauge, error) { return mt.Float64Gauge(name, u, d) })
}
