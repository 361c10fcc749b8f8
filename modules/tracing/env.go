package tracing

import (
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/svckit/svc/secret"
)

// Environment variables read besides SVC_TRACING_*.
const (
	// EnvLoadVar switches reading SVC_TRACING_* on or off ("true"/"false",
	// "1"/"0", "yes"/"no", "on"/"off"); unset means on. It is the same
	// switch the metrics component reads.
	EnvLoadVar = "SVC_ENV_LOAD"

	envServiceName        = "OTEL_SERVICE_NAME"
	envOTLPEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envOTLPTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	envOTLPHeaders        = "OTEL_EXPORTER_OTLP_HEADERS"
	envOTLPTracesHeaders  = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	envSampler            = "OTEL_TRACES_SAMPLER"
	envSamplerArg         = "OTEL_TRACES_SAMPLER_ARG"
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
	v, ok := os.LookupEnv(EnvLoadVar)
	if !ok || strings.TrimSpace(v) == "" {
		return true, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "t", "true", "yes", "y", "on":
		return true, nil
	case "0", "f", "false", "no", "n", "off":
		return false, nil
	}
	return false, &ConfigError{Setting: EnvLoadVar, Field: "env_load", Reason: fmt.Sprintf("%q is not a boolean; use true or false", v)}
}

var (
	durationType = reflect.TypeOf(time.Duration(0))
	stringMap    = reflect.TypeOf(map[string]string(nil))
)

// readSVC fills c from SVC_TRACING_* through caarlos0/env and records in
// src which variable set which field.
func readSVC(c *Config, src sources) error {
	keys := envKeys()
	err := env.ParseWithOptions(c, env.Options{
		Prefix: EnvPrefix,
		FuncMap: map[reflect.Type]env.ParserFunc{
			durationType: func(v string) (any, error) { return parseSeconds(v) },
			stringMap:    func(v string) (any, error) { return parseKeyValues(v, false) },
		},
		OnSet: func(key string, value any, isDefault bool) {
			if s, ok := value.(string); ok && s != "" && !isDefault {
				src[keys.spec(key)] = key
			}
		},
	})
	if err == nil {
		return nil
	}
	// caarlos0/env names the Go field; name the variable instead, and keep
	// the parser's reason (ours never quote secret values).
	var agg env.AggregateError
	if errors.As(err, &agg) {
		for _, e := range agg.Errors {
			var pe env.ParseError
			if errors.As(e, &pe) {
				spec, key := keys.byGo(pe.Name)
				return &ConfigError{Setting: key, Field: spec, Reason: pe.Err.Error()}
			}
		}
	}
	return &Error{Msg: "tracing: read " + EnvPrefix + "* variables", Err: err}
}

type envKeyTable map[string][2]string // Go field name → {spec name, variable}

func envKeys() envKeyTable {
	t := envKeyTable{}
	rt := reflect.TypeOf(Config{})
	for _, f := range fields {
		sf, _ := rt.FieldByName(f.goName)
		key, _, _ := strings.Cut(sf.Tag.Get("env"), ",")
		t[f.goName] = [2]string{f.spec, EnvPrefix + key}
	}
	return t
}

func (t envKeyTable) spec(key string) string {
	for _, v := range t {
		if v[1] == key {
			return v[0]
		}
	}
	return key
}

func (t envKeyTable) byGo(name string) (string, string) {
	v, ok := t[name]
	if !ok {
		return name, EnvPrefix + name
	}
	return v[0], v[1]
}

// applyOTELFallbacks fills fields still empty from the standard
// OpenTelemetry variables. Signal-specific variables win over general ones.
func applyOTELFallbacks(c *Config, src sources) error {
	if c.ServiceName == "" {
		if v := lookup(envServiceName); v != "" {
			c.ServiceName, src["service_name"] = v, envServiceName
		}
	}
	if !c.Endpoint.IsSet() {
		for _, name := range []string{envOTLPTracesEndpoint, envOTLPEndpoint} {
			if v := lookup(name); v != "" {
				c.Endpoint, src["endpoint"] = secret.URL(v), name
				break
			}
		}
	}
	if len(c.Headers) == 0 {
		for _, name := range []string{envOTLPTracesHeaders, envOTLPHeaders} {
			v := lookup(name)
			if v == "" {
				continue
			}
			var h Headers
			if err := h.UnmarshalText([]byte(v)); err != nil {
				return &ConfigError{Setting: name, Field: "headers", Reason: err.Error()}
			}
			c.Headers, src["headers"] = h, name
			break
		}
	}
	return samplerFallbacks(c, src)
}

// samplerFallbacks reads OTEL_TRACES_SAMPLER and, for the samplers that
// take one, OTEL_TRACES_SAMPLER_ARG; OpenTelemetry ignores the argument of
// the others, and so does this.
func samplerFallbacks(c *Config, src sources) error {
	if c.Sampler == "" {
		if v := lookup(envSampler); v != "" {
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
	v := lookup(envSamplerArg)
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

func lookup(name string) string { return strings.TrimSpace(os.Getenv(name)) }

// parseSeconds reads a positive number of seconds and also Go durations
// ("500ms"), and refuses zero, negative, NaN and overflowing values.
func parseSeconds(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(f) || f <= 0 || f*float64(time.Second) >= math.MaxInt64 {
			return 0, fmt.Errorf("%q is not a positive number of seconds", v)
		}
		d := time.Duration(f * float64(time.Second))
		if d <= 0 {
			return 0, fmt.Errorf("%q is below one nanosecond", v)
		}
		return d, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive number of seconds (e.g. 1, 0.5) or a duration (e.g. 500ms)", v)
	}
	return d, nil
}
