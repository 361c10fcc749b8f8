package tracing

import "fmt"

// Error is the base of every error this package returns: errors.As(err,
// new(*tracing.Error)) tells a tracing failure apart from others.
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
	// ErrNotStarted is returned by Config and Provider before the component
	// has been opened, that is before the fx app started.
	ErrNotStarted = &Error{Msg: "tracing: the tracing component is not started yet; use it after the app starts"}

	// ErrInactive is returned by Provider when the exporter resolved to
	// "none" (for example "auto" with no endpoint): no provider exists and
	// the global tracer provider was left alone.
	ErrInactive = &Error{Msg: "tracing: the tracing component is inactive (exporter resolved to none); set SVC_TRACING_EXPORTER or an endpoint to enable it"}

	// ErrConfig is wrapped by every *ConfigError.
	ErrConfig = &Error{Msg: "tracing: invalid configuration"}

	// ErrAlreadyOpen is returned by Open on a component that was opened
	// before; a component lives for one app start and stop.
	ErrAlreadyOpen = &Error{Msg: "tracing: the component was already opened; build a new one per app"}
)

// ConfigError says which setting holds an invalid value. Setting is where
// the value came from: an environment variable (SVC_TRACING_EXPORTER,
// OTEL_EXPORTER_OTLP_ENDPOINT, ...), an option (tracing.WithExporter) or a
// Config field (Config.Exporter). The message never repeats a secret value.
type ConfigError struct {
	// Setting names what to fix.
	Setting string
	// Field is the Config field's snake_case name, e.g. "shutdown_timeout".
	Field string
	// Reason says what is wrong, without repeating secret values.
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("tracing: invalid %s (%s): %s", e.Setting, e.Field, e.Reason)
}

// Unwrap returns ErrConfig, so errors.Is(err, tracing.ErrConfig) and
// errors.As(err, new(*tracing.Error)) both hold.
func (e *ConfigError) Unwrap() error { return ErrConfig }
