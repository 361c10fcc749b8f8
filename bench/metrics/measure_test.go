// Package metrics benchmarks svc's measure wrappers against the same
// OpenTelemetry instrument calls written by hand, in one run:
//
//	cd bench && go test -run '^$' -bench . -benchmem -count 5 ./metrics
//
// Goals (issue 7): with no component active a wrapped call costs under
// 20 ns and allocates nothing; with one active it stays within 1.2x of the
// hand-written calls.
package metrics

import (
	"context"
	"errors"
	"github.com/svckit/svc/bench/internal/pair"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	svcmetrics "github.com/svckit/svc/modules/metrics"
	_ "github.com/svckit/svc/modules/metrics/prometheus" // the exporter the benchmarks read back
)

//go:noinline
func empty(context.Context) error { return nil }

var errBench = errors.New("bench")

//go:noinline
func failing(context.Context) error { return errBench }

func open(b *testing.B) *svcmetrics.Metrics {
	b.Helper()
	m, err := svcmetrics.FromConfig(svcmetrics.Config{Exporter: "prometheus"})
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = m.Close(context.Background()) })
	return m
}

// handWritten is what a careful author writes without svc: instruments
// resolved once, the attribute option built once, two clock reads.
type handWritten struct {
	duration metric.Float64Histogram
	calls    metric.Int64Counter
	active   metric.Int64UpDownCounter
	success  []metric.AddOption
	failure  []metric.AddOption
}

func newHandWritten(b *testing.B, m *svcmetrics.Metrics, name string) *handWritten {
	mt, err := m.Meter("bench.hand")
	if err != nil {
		b.Fatal(err)
	}
	h := &handWritten{
		success: []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("outcome", "success")))},
		failure: []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(
			attribute.String("outcome", "error"), attribute.String("error.type", "errors.errorString")))},
	}
	// The same buckets the wrappers use, so both sides aggregate alike.
	h.duration, _ = mt.Float64Histogram(name+".duration", metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10))
	h.calls, _ = mt.Int64Counter(name + ".calls")
	h.active, _ = mt.Int64UpDownCounter(name + ".active")
	return h
}

func (h *handWritten) call(ctx context.Context, fn func(context.Context) error, inFlight bool) error {
	if inFlight {
		h.active.Add(ctx, 1)
	}
	start := time.Now()
	err := fn(ctx)
	h.duration.Record(ctx, time.Since(start).Seconds())
	if err == nil {
		h.calls.Add(ctx, 1, h.success...)
	} else {
		h.calls.Add(ctx, 1, h.failure...)
	}
	if inFlight {
		h.active.Add(ctx, -1)
	}
	return err
}

func BenchmarkMeasure(b *testing.B) {
	ctx := context.Background()

	b.Run("bare-call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = empty(ctx)
		}
	})

	b.Run("svc-inactive", func(b *testing.B) {
		op := svcmetrics.WrapCtxErr(empty, svcmetrics.Name("bench.inactive"))
		b.ReportAllocs()
		for b.Loop() {
			_ = op(ctx)
		}
	})

	for _, tc := range []struct {
		name     string
		fn       func(context.Context) error
		inFlight bool
	}{
		{"success", empty, false},
		{"error", failing, false},
		{"success-inflight", empty, true},
	} {
		b.Run("hand-written/"+tc.name, func(b *testing.B) {
			m := open(b)
			h := newHandWritten(b, m, "bench.hand."+tc.name)
			b.ReportAllocs()
			for b.Loop() {
				_ = h.call(ctx, tc.fn, tc.inFlight)
			}
		})
		b.Run("svc-active/"+tc.name, func(b *testing.B) {
			open(b)
			opts := []svcmetrics.MeasureOption{svcmetrics.Name("bench.svc." + tc.name)}
			if tc.inFlight {
				opts = append(opts, svcmetrics.RecordInFlight())
			}
			op := svcmetrics.WrapCtxErr(tc.fn, opts...)
			b.ReportAllocs()
			for b.Loop() {
				_ = op(ctx)
			}
		})
	}
}

// BenchmarkMeasurePaired times svc's wrapper and the hand-written calls
// alternately in blocks, so both see the same load on a busy box; it
// reports both sides and the ratio svc/hand on wall and thread CPU time.
func BenchmarkMeasurePaired(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		fn       func(context.Context) error
		inFlight bool
	}{
		{"success", empty, false},
		{"error", failing, false},
		{"success-inflight", empty, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			m := open(b)
			h := newHandWritten(b, m, "bench.pair.hand."+tc.name)
			opts := []svcmetrics.MeasureOption{svcmetrics.Name("bench.pair.svc." + tc.name)}
			if tc.inFlight {
				opts = append(opts, svcmetrics.RecordInFlight())
			}
			op := svcmetrics.WrapCtxErr(tc.fn, opts...)
			b.ReportAllocs()
			cs, ch := pair.Paired(b, 64,
				func() { _ = op(ctx) },
				func() { _ = h.call(ctx, tc.fn, tc.inFlight) })
			pair.Report(b, "svc", "hand", cs, ch)
		})
	}
	b.Run("inactive", func(b *testing.B) {
		op := svcmetrics.WrapCtxErr(empty, svcmetrics.Name("bench.pair.inactive"))
		b.ReportAllocs()
		cs, cb := pair.Paired(b, 1024, func() { _ = op(ctx) }, func() { _ = empty(ctx) })
		pair.Report(b, "svc", "bare", cs, cb)
	})
}
