package tracing

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/svckit/svc/internal/otlpconf"
)

// Environment variables read besides SVC_TRACING_*.
const (
	// EnvLoadVar switches reading SVC_TRACING_* on or off ("true"/"false",
	// "1"/"0", "yes"/"no", "on"/"off"); unset means on. It is the same
	// switch the metrics component reads.
	EnvLoadVar = otlpconf.EnvLoadVar

	envSampler    = "OTEL_TRACES_SAMPLER"
	envSamplerArg = "OTEL_TRACES_SAMPLER_ARG"
)

// LoadConfig reads the SVC_TRACING_* variables and the OTEL_* fallbacks
// into a Config, ignoring SVC_ENV_LOAD. Unset variables leave fields zero;
// no defaults are filled and nothing is validated beyond parsing, so the
// result can be adjusted and passed to FromConfig. Errors are *ConfigError
// values naming the variable.
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

// readSVC fills c from SVC_TRACING_* through caarlos0/env and records in
// src which variable set which field.
func readSVC(c *Config, src sources) error {
	keys := fields.Keys(reflect.TypeFor[Config](), EnvPrefix)
	err := otlpconf.ReadEnv(c, EnvPrefix, "1", keys, src)
	if err == nil {
		return nil
	}
	if ce := configError(err); ce != err {
		return ce
	}
	return &Error{Msg: "tracing: read " + EnvPrefix + "* variables", Err: err}
}

// applyOTELFallbacks fills fields still empty from the standard
// OpenTelemetry variables. Signal-specific variables win over general ones.
func applyOTELFallbacks(c *Config, src sources) error {
	if err := otlpconf.ApplyFallbacks("TRACES", &c.ServiceName, &c.Endpoint, &c.Headers, src); err != nil {
		return configError(err)
	}
	return samplerFallbacks(c, src)
}

// samplerFallbacks reads OTEL_TRACES_SAMPLER and, for the samplers that
// take one, OTEL_TRACES_SAMPLER_ARG; OpenTelemetry ignores the argument of
// the others, and so does this.
func samplerFallbacks(c *Config, src sources) error {
	if c.Sampler == "" {
		if v := otlpconf.Lookup(envSampler); v != "" {
			s, err := ParseSampler(v)
			if err != nil {
				return &ConfigError{Setting: envSampler, Field: "sampler", Reason: err.Error()}
			}
			c.Sampler, src["sampler"] = s, envSampler
		}
	}
	if c.SamplerRatio != nil || !c.Sampler.TakesRatio() {
		return nil
	}
	v := otlpconf.Lookup(envSamplerArg)
	if v == "" {
		return nil
	}
	r, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return &ConfigError{Setting: envSamplerArg, Field: "sampler_ratio", Reason: fmt.Sprintf("%q is not a number from 0 to 1", v)}
	}
	c.SamplerRatio, src["sampler_ratio"] = &r, envSamplerArg
	return nil
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
