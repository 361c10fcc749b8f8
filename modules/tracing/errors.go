package tracing

import "errors"

var (
	// ErrNotStarted is returned by Provider before the component has been
	// opened, that is before the fx app started.
	ErrNotStarted = errors.New("tracing: the tracing component is not started yet; use it after the app starts")

	// ErrInactive is returned by Provider when the exporter resolved to
	// "none" (for example "auto" with no endpoint): no provider exists and
	// the global tracer provider was left alone.
	ErrInactive = errors.New("tracing: the tracing component is inactive (exporter resolved to none); set SVC_TRACING_EXPORTER or an endpoint to enable it")
)
