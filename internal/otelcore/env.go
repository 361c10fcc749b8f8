package otelcore

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

// EnvLoadVar switches reading the SVC_* variables of both modules on or
// off; unset means on.
const EnvLoadVar = "SVC_ENV_LOAD"

// EnvLoad reads SVC_ENV_LOAD: unset or empty means true. It refuses
// anything but the usual spellings of a boolean, returning the reason.
func EnvLoad() (bool, error) {
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
	return false, fmt.Errorf("%q is not a boolean; use true or false", v)
}

// Lookup returns the trimmed value of the environment variable name.
func Lookup(name string) string { return strings.TrimSpace(os.Getenv(name)) }

// FirstSet returns the value and name of the first of names that is set
// and not blank: the signal-specific OTEL_* variable is passed before the
// general one, so it wins. It returns "", "" when none is set.
func FirstSet(names ...string) (value, name string) {
	for _, n := range names {
		if v := Lookup(n); v != "" {
			return v, n
		}
	}
	return "", ""
}

// ParseSeconds reads a positive number of seconds ("2.5") and also Go
// durations ("500ms"), and refuses zero, negative, NaN and overflowing
// values. example is the number the refusal suggests (e.g. "60").
func ParseSeconds(v, example string) (time.Duration, error) {
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
		return 0, fmt.Errorf("%q is not a positive number of seconds (e.g. %s, 0.5) or a duration (e.g. 500ms)", v, example)
	}
	return d, nil
}

// KeyTable maps a config struct's Go field names to their setting name
// (e.g. "export_interval") and environment variable.
type KeyTable map[string][2]string

// add records the Go field goName of the struct type rt under its setting
// name spec and the variable prefix plus the field's env tag.
func (t KeyTable) add(rt reflect.Type, prefix, goName, spec string) {
	sf, _ := rt.FieldByName(goName)
	key, _, _ := strings.Cut(sf.Tag.Get("env"), ",")
	t[goName] = [2]string{spec, prefix + key}
}

func (t KeyTable) spec(key string) string {
	for _, v := range t {
		if v[1] == key {
			return v[0]
		}
	}
	return key
}

func (t KeyTable) byGo(prefix, name string) (string, string) {
	v, ok := t[name]
	if !ok {
		return name, prefix + name
	}
	return v[0], v[1]
}

// SettingError says which variable holds a value that does not parse. The
// modules turn it into their own *ConfigError.
type SettingError struct {
	Setting, Field, Reason string
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("invalid %s (%s): %s", e.Setting, e.Field, e.Reason)
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	stringMap    = reflect.TypeFor[map[string]string]()
	headerMap    = reflect.TypeFor[map[string]secret.String]()
)

// ReadEnv fills the struct dst points to from the variables under prefix
// through caarlos0/env, reading durations with ParseSeconds, headers with
// ParseHeaders and other maps with ParseKeyValues, and records in src which variable set which setting. A
// value that does not parse is a *SettingError naming the variable (the
// parsers never quote secret values); any other failure is returned as
// caarlos0/env gave it.
func ReadEnv(dst any, prefix, example string, keys KeyTable, src map[string]string) error {
	err := env.ParseWithOptions(dst, env.Options{
		Prefix: prefix,
		FuncMap: map[reflect.Type]env.ParserFunc{
			durationType: func(v string) (any, error) { return ParseSeconds(v, example) },
			stringMap:    func(v string) (any, error) { return ParseKeyValues(v, false) },
			headerMap:    func(v string) (any, error) { return ParseHeaders(v) },
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
	// caarlos0/env names the Go field; name the variable instead.
	var agg env.AggregateError
	if errors.As(err, &agg) {
		for _, e := range agg.Errors {
			var pe env.ParseError
			if errors.As(e, &pe) {
				spec, key := keys.byGo(prefix, pe.Name)
				return &SettingError{Setting: key, Field: spec, Reason: pe.Err.Error()}
			}
		}
	}
	return err
}

// The standard OpenTelemetry variables both modules fall back on.
const (
	EnvServiceName  = "OTEL_SERVICE_NAME"
	EnvOTLPEndpoint = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvOTLPHeaders  = "OTEL_EXPORTER_OTLP_HEADERS"
)

// ApplyFallbacks fills the settings still empty from the standard
// OpenTelemetry variables: OTEL_SERVICE_NAME, then
// OTEL_EXPORTER_OTLP_<signal>_ENDPOINT and _HEADERS (signal is "METRICS"
// or "TRACES"), each before its general form. It records in src which
// variable set which setting. Headers that do not parse are a
// *SettingError naming the variable, never quoting a value.
func ApplyFallbacks[H ~map[string]secret.String](signal string, serviceName *string, endpoint *secret.URL, headers *H, src map[string]string) error {
	if *serviceName == "" {
		if v := Lookup(EnvServiceName); v != "" {
			*serviceName, src["service_name"] = v, EnvServiceName
		}
	}
	if *endpoint == "" {
		if v, name := FirstSet("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT", EnvOTLPEndpoint); v != "" {
			*endpoint, src["endpoint"] = secret.URL(v), name
		}
	}
	if len(*headers) == 0 {
		if v, name := FirstSet("OTEL_EXPORTER_OTLP_"+signal+"_HEADERS", EnvOTLPHeaders); v != "" {
			h, err := ParseHeaders(v)
			if err != nil {
				return &SettingError{Setting: name, Field: "headers", Reason: err.Error()}
			}
			*headers, src["headers"] = h, name
		}
	}
	return nil
}
