// Package telemetryhook lets fxsvc hand the metrics component's meter
// provider to the request telemetry it built, when the component opens and
// closes, without modules/telemetry exporting a method no app calls (an
// app that builds its own passes telemetry.MeterProvider).
//
// Package telemetry sets SetMeterProvider in its init; fxsvc imports
// telemetry, so it is set before anything calls it. t is a
// *telemetry.Telemetry, passed as any because this package sits below
// telemetry; any other value is a defect of svc and panics.
package telemetryhook

import "go.opentelemetry.io/otel/metric"

// SetMeterProvider records t's HTTP server metrics into mp from the next
// request on; nil turns them off.
var SetMeterProvider func(t any, mp metric.MeterProvider)
