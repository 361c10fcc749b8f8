package metrics

import "fmt"

// Error is the base of every error this package returns: errors.As(err,
// new(*metrics.Error)) tells a metrics failure apart from others.
type Error struct {
	// Msg says what failed and, where it applies, which setting to fix.
	Msg string
	// Err is the cause, or nil.
	Err error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return e.Msg
	}
	return e.Msg + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

var (
	// ErrNotStarted is returned by Config, Provider and Meter (and the
	// instrument factories) before the component has been opened, that is
	// before the fx app started. Resolve instruments in an fx.Invoke hook or
	// an OnStart hook registered after fxsvc.Metrics, or use the measure
	// wrappers, which bind late by themselves.
	ErrNotStarted = &Error{Msg: "metrics: the metrics component is not started yet; use it after the app starts"}

	// ErrInactive is returned by Provider when the exporter resolved to
	// "none" (for example "auto" with no endpoint): no provider exists.
	// Meter and the instrument factories do not return it; they hand out
	// no-op instruments instead.
	ErrInactive = &Error{Msg: "metrics: the metrics component is inactive (exporter resolved to none); set SVC_METRICS_EXPORTER or an endpoint to enable it"}

	// ErrConfig is wrapped by every *ConfigError.
	ErrConfig = &Error{Msg: "metrics: invalid configuration"}

	// ErrAlreadyOpen is returned by Open on a component that was opened
	// before; a component lives for one app start and stop.
	ErrAlreadyOpen = &Error{Msg: "metrics: the component was already opened; build a new one per app"}
)

// ConfigError says which setting holds an invalid value. Setting is where
// the value came from: an environment variable (SVC_METRICS_EXPORTER,
// OTEL_EXPORTER_OTLP_ENDPOINT, ...), an option (metrics.WithExporter) or a
// Config field (Config.Exporter). The message never repeats a secret value.
type ConfigError struct {
	// Setting names what to fix.
	Setting string
	// Field is the setting's name, e.g. "export_interval".
	Field string
	// Reason says what is wrong, without repeating secret values.
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("metrics: invalid %s (%s): %s", e.Setting, e.Field, e.Reason)
}

// Unwrap returns ErrConfig, so errors.Is(err, metrics.ErrConfig) and
// errors.As(err, new(*metrics.Error)) both hold.
func (e *ConfigError) Unwrap() error { return ErrConfig }
