package fxsvc

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/runtime"
	otelmetric "go.opentelemetry.io/otel/metric"
	"go.uber.org/fx"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/modules/metrics"
)

// Metrics adds the metrics component to the app: built by metrics.New from
// opts over the environment (SVC_METRICS_*, the OTEL_* fallbacks), opened
// when the app starts (its provider becomes the process-global meter
// provider) and closed when it stops (flush bounded by shutdown_timeout,
// the previous global provider restored). It provides *metrics.Metrics to
// the graph and logs to the graph's *zap.Logger, or to [DefaultLogger] when
// the app has none (a metrics.WithLogger in opts wins).
//
// It refuses: a second Metrics in one app (fx.New fails: fx refuses the
// second provider of *metrics.Metrics, named onlyOneMetricsPerApp, before
// the singleton check; any other component claiming the metrics kind gets
// an error naming both registrations), and an invalid setting (fx.New fails with a
// *metrics.ConfigError naming the variable or option), which includes an
// exporter the binary does not link: package metrics links none, so import
// the one the app uses (e.g. _ "github.com/svckit/svc/modules/metrics/prometheus",
// or modules/metrics/allexporters). An auto-disabled
// component (exporter auto with no endpoint) is registered and inactive,
// so Metrics() may be added unconditionally.
//
// While active it also reports the Go runtime's metrics
// (go.opentelemetry.io/contrib/instrumentation/runtime: go.memory.used,
// go.goroutine.count, go.processor.limit, ...), and [Serve] records the
// HTTP server metrics into it.
func Metrics(opts ...metrics.Option) fx.Option {
	return withKit(metricsSignal(opts).module("svc.metrics", metricsOptions(opts),
		fx.Provide(func(m *metrics.Metrics) meterSource {
			return func() (otelmetric.MeterProvider, bool, error) {
				if !m.Active() {
					return nil, false, nil
				}
				p, err := m.Provider()
				return p, true, err
			}
		}),
	))
}

type metricsOptions []metrics.Option

type metricsParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Options   metricsOptions
	Log       logIn
}

// onlyOneMetricsPerApp builds and registers the component. Its name is
// what fx reports when an app adds Metrics twice.
func onlyOneMetricsPerApp(p metricsParams) (*metrics.Metrics, error) {
	m, err := metricsSignal(nil).buildIn(p.Lifecycle, p.Log, p.Options)
	if err != nil {
		return nil, err
	}
	p.Lifecycle.Append(fx.Hook{OnStart: func(context.Context) error { return startRuntimeMetrics(m) }})
	return m, nil
}

// startRuntimeMetrics reports the Go runtime's metrics (go.memory.*,
// go.goroutine.count, go.processor.limit, ...) on an active component's
// provider. They live as long as that provider: the component's Close
// shuts it down, and a later app's component starts its own.
func startRuntimeMetrics(m *metrics.Metrics) error {
	if !m.Active() {
		return nil
	}
	p, err := m.Provider()
	if err != nil {
		return fmt.Errorf("fxsvc.Metrics: Go runtime metrics: %w", err)
	}
	if err := runtime.Start(runtime.WithMeterProvider(p)); err != nil {
		return fmt.Errorf("fxsvc.Metrics: Go runtime metrics: %w", err)
	}
	return nil
}

// encodeMetrics writes the component's resolved settings for the start
// line. The endpoint prints with its credentials masked (secret.URL),
// header values and the password as *** (secret.String).
func encodeMetrics(m *metrics.Metrics, enc zapcore.ObjectEncoder) {
	encodeSignal(m, enc)
	cfg, err := m.Config()
	if err != nil {
		return
	}
	if cfg.ServiceName != "" {
		enc.AddString("service_name", cfg.ServiceName)
	}
	if cfg.Endpoint != "" {
		enc.AddString("endpoint", cfg.Endpoint.String())
	}
	if len(cfg.Headers) > 0 {
		_ = enc.AddObject("headers", zapcore.ObjectMarshalerFunc(func(enc zapcore.ObjectEncoder) error {
			for _, k := range slices.Sorted(maps.Keys(cfg.Headers)) {
				enc.AddString(k, cfg.Headers[k].String())
			}
			return nil
		}))
	}
	if cfg.BasicAuthUsername != "" {
		enc.AddString("basic_auth_username", cfg.BasicAuthUsername)
		enc.AddString("basic_auth_password", cfg.BasicAuthPassword.String())
	}
	enc.AddDuration("export_interval", cfg.ExportInterval)
	enc.AddDuration("export_timeout", cfg.ExportTimeout)
	enc.AddDuration("shutdown_timeout", cfg.ShutdownTimeout)
}

// metricsSignal is fxsvc.Metrics's part of what the two signals share.
func metricsSignal(opts []metrics.Option) otelSignal[*metrics.Metrics, metrics.Option] {
	return otelSignal[*metrics.Metrics, metrics.Option]{kind: "metrics", option: "fxsvc.Metrics",
		prefix: "SVC_METRICS_", config: &metrics.Config{}, build: onlyOneMetricsPerApp, encode: encodeMetrics,
		newC: metrics.New, withLogger: metrics.WithLogger, opts: opts,
		flush: func(p *stopParts) *time.Duration { return &p.flush }}
}
