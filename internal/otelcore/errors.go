package otelcore

import "fmt"

// ConfigError says which setting holds an invalid value. Setting is where
// the value came from: an environment variable (SVC_METRICS_EXPORTER,
// OTEL_EXPORTER_OTLP_ENDPOINT, ...), an option (metrics.WithDefaultExporter), or a
// Config field (Config.Exporter), given to WithConfig or FromConfig. The
// message never repeats a secret value.
type ConfigError struct {
	// Signal is the component that refused: "metrics" or "tracing".
	Signal string
	// Setting names what to fix.
	Setting string
	// Field is the setting's name, e.g. "export_interval".
	Field string
	// Reason says what is wrong, without repeating secret values.
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s: invalid %s (%s): %s", e.Signal, e.Setting, e.Field, e.Reason)
}

// Fail is a *ConfigError for the field spec, naming the setting its value
// came from (see Fields.Setting).
func (s *Signal) Fail(src map[string]string, spec, format string, args ...any) error {
	return &ConfigError{Signal: s.Name, Setting: s.fields().Setting(src, spec), Field: spec, Reason: fmt.Sprintf(format, args...)}
}

// fault names the setting of a refusal of the shared rules the way it was
// given; an unset partner (Missing) is named the way the set one was.
func (s *Signal) fault(src map[string]string, f *Fault) error {
	switch {
	case f == nil:
		return nil
	case f.Missing != "":
		setting := s.fields().PartnerSetting(src, f.Field, f.Missing, s.EnvPrefix())
		return &ConfigError{Signal: s.Name, Setting: setting, Field: f.Missing, Reason: f.Reason}
	}
	return s.Fail(src, f.Field, "%s", f.Reason)
}

// configError turns a *SettingError into the signal's *ConfigError; any
// other error (or nil) is returned as it is.
func (s *Signal) configError(err error) error {
	if se, ok := err.(*SettingError); ok {
		return &ConfigError{Signal: s.Name, Setting: se.Setting, Field: se.Field, Reason: se.Reason}
	}
	return err
}
