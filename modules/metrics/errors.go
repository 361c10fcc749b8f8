package metrics

import "errors"

var (
	// ErrNotStarted is returned by Config, Provider and Meter (and the
	// instrument factories) before the component has been opened, that is
	// before the fx app started. Resolve instruments in an fx.Invoke hook or
	// an OnStart hook registered after fxsvc.Metrics, or use the measure
	// wrappers, which bind late by themselves.
	ErrNotStarted = errors.New("metrics: the metrics component is not started yet; use it after the app starts")

	// ErrInactive is returned by Provider when the exporter resolved to
	// "none" (for example "auto" with no endpoint): no provider exists.
	// Meter and the instrument factories do not return it; they hand out
	// no-op instruments instead.
	ErrInactive = errors.New("metrics: the metrics component is inactive (exporter resolved to none); set SVC_METRICS_EXPORTER or an endpoint to enable it")
)
