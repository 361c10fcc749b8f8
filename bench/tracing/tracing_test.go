// Package tracing benchmarks the span path through svc's tracing
// component: the global tracer (a forwarding bridge while a component is
// open) against the SDK provider's own tracer, and the inactive path
// against OpenTelemetry's no-op tracer.
package tracing

import (
	"context"
	"io"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/svckit/svc/bench/internal/pair"
	svctracing "github.com/svckit/svc/modules/tracing"
	_ "github.com/svckit/svc/modules/tracing/console"
)

func startEnd(ctx context.Context, tr trace.Tracer) {
	_, s := tr.Start(ctx, "bench")
	s.End()
}

// BenchmarkSpanPaired: one span started and ended.
//
//   - inactive-never-opened: no component was ever opened, so the global
//     is OpenTelemetry's own default; svc adds nothing.
//   - inactive-after-close: a component was opened and closed, so the
//     global delegates to the bridge, which has no provider.
//   - active: the global tracer through the bridge against the same SDK
//     provider's tracer taken directly (console exporter to io.Discard,
//     batched on another goroutine).
func BenchmarkSpanPaired(b *testing.B) {
	ctx := context.Background()
	bare := noop.NewTracerProvider().Tracer("bench")
	b.Run("inactive-never-opened", func(b *testing.B) {
		global := otel.Tracer("bench")
		b.ReportAllocs()
		cs, cn := pair.Paired(b, 1024, func() { startEnd(ctx, global) }, func() { startEnd(ctx, bare) })
		pair.Report(b, "global", "noop", cs, cn)
	})
	b.Run("active", func(b *testing.B) {
		tr, err := svctracing.FromConfig(svctracing.Config{Exporter: "console"},
			svctracing.WithConsoleWriter(io.Discard))
		if err != nil {
			b.Fatal(err)
		}
		if err := tr.Open(ctx); err != nil {
			b.Fatal(err)
		}
		defer tr.Close(ctx)
		p, _ := tr.Provider()
		global, direct := otel.Tracer("bench"), p.Tracer("bench")
		b.ReportAllocs()
		cs, cd := pair.Paired(b, 64, func() { startEnd(ctx, global) }, func() { startEnd(ctx, direct) })
		pair.Report(b, "global", "sdk", cs, cd)
	})
	b.Run("inactive-after-close", func(b *testing.B) {
		global := otel.Tracer("bench")
		b.ReportAllocs()
		cs, cn := pair.Paired(b, 1024, func() { startEnd(ctx, global) }, func() { startEnd(ctx, bare) })
		pair.Report(b, "global", "noop", cs, cn)
	})
}
