package metrics

import (
	"errors"
	"reflect"

	"github.com/svckit/svc/internal/otlpconf"
)

// Environment variables read besides SVC_METRICS_*.
const (
	// EnvLoadVar switches reading SVC_METRICS_* on or off ("true"/"false",
	// "1"/"0", "yes"/"no", "on"/"off"); unset means on.
	EnvLoadVar = otlpconf.EnvLoadVar
)

// LoadConfig reads the SVC_METRICS_* variables and the OTEL_* fallbacks
// into a Config, ignoring SVC_ENV_LOAD. Unset variables leave fields zero;
// no defaults are filled and nothing is validated beyond parsing, so the
// result can be adjusted and passed to FromConfig. Errors are
// *ConfigError values naming the variable.
func LoadConfig() (Config, error) {
	var c Config
	src := sources{}
	if err := readSVC(&c, src); err != nil {
		return c, err
	}
	err := applyOTELFallbacks(&c, src)
	return c, err
}

// envLoadDefault reads SVC_ENV_LOAD: unset or empty means true.
func envLoadDefault() (bool, error) {
	load, err := otlpconf.EnvLoad()
	if err != nil {
		return false, &ConfigError{Setting: EnvLoadVar, Field: "env_load", Reason: err.Error()}
	}
	return load, nil
}

// readSVC fills c from SVC_METRICS_* through caarlos0/env and records in
// src which variable set which field.
func readSVC(c *Config, src sources) error {
	keys := fields.Keys(reflect.TypeFor[Config](), EnvPrefix)
	err := otlpconf.ReadEnv(c, EnvPrefix, "60", keys, src)
	if err == nil {
		return nil
	}
	if ce := configError(err); ce != err {
		return ce
	}
	return &Error{Msg: "metrics: read " + EnvPrefix + "* variables", Err: err}
}

// applyOTELFallbacks fills fields still empty from the standard
// OpenTelemetry variables. Signal-specific variables win over general ones.
func applyOTELFallbacks(c *Config, src sources) error {
	return configError(otlpconf.ApplyFallbacks("METRICS", &c.ServiceName, &c.Endpoint, &c.Headers, src))
}

// configError turns a refusal of the shared rules into this package's
// *ConfigError; any other error (or nil) is returned as it is.
func configError(err error) error {
	var se *otlpconf.SettingError
	if errors.As(err, &se) {
		return &ConfigError{Setting: se.Setting, Field: se.Field, Reason: se.Reason}
	}
	return err
}
