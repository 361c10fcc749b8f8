// Package otelglobal is how every svc component gets its OpenTelemetry
// providers: from the process-global ones (otel.GetMeterProvider,
// otel.GetTracerProvider), which fxsvc.Metrics and fxsvc.Tracing install
// (through a bridge that follows the running app) and an app without fxsvc
// installs itself. No component takes a provider of its own, so a metric
// or a span never goes to one provider while the rest go to another.
package otelglobal

import (
	"reflect"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Before anyone installs a provider the globals are otel's delegates,
// which record nothing until then. While they still are, a component may
// skip work whose only use is telemetry (MetersInstalled, TracesInstalled).
var (
	unsetMeters  = otel.GetMeterProvider()
	unsetTracers = otel.GetTracerProvider()
)

// MetersInstalled reports whether a meter provider has been installed as
// the global one.
func MetersInstalled() bool { return otel.GetMeterProvider() != unsetMeters }

// TracesInstalled reports whether a tracer provider has been installed as
// the global one.
func TracesInstalled() bool { return otel.GetTracerProvider() != unsetTracers }

// Instruments holds what a component builds from the global meter
// provider, its instruments, and builds them again when the global
// provider changes: instruments stay bound to the provider that made them
// (otel-go#4291), so a component that kept its first ones would record
// into a provider since shut down. The zero value is ready; it is safe for
// concurrent use.
type Instruments[T any] struct {
	cur atomic.Pointer[bound[T]]
	mu  sync.Mutex
}

type bound[T any] struct {
	provider metric.MeterProvider
	v        *T
}

// Get returns the instruments for the current global provider. When the
// provider changed (or on first use) it calls build, once per provider,
// with the provider and the previous instruments (nil the first time),
// which build may release (an observable callback to unregister).
func (in *Instruments[T]) Get(build func(p metric.MeterProvider, prev *T) *T) *T {
	p := otel.GetMeterProvider()
	if !reflect.TypeOf(p).Comparable() {
		// A provider == cannot compare (it would panic): built anew for
		// each use, never cached.
		return build(p, nil)
	}
	if b := in.cur.Load(); b != nil && b.provider == p {
		return b.v
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	b := in.cur.Load()
	if b != nil && b.provider == p {
		return b.v
	}
	var prev *T
	if b != nil {
		prev = b.v
	}
	v := build(p, prev)
	in.cur.Store(&bound[T]{provider: p, v: v})
	return v
}

// Tracer returns a tracer of the global provider for scope.
func Tracer(scope string) trace.Tracer { return otel.GetTracerProvider().Tracer(scope) }
