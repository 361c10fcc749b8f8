package tracing

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/svckit/svc/internal/otelcore"
)

// The values of Config.Sampler.
const (
	samplerAlwaysOn                = "always_on"
	samplerAlwaysOff               = "always_off"
	samplerTraceIDRatio            = "traceidratio"
	samplerParentBasedAlwaysOn     = "parentbased_always_on"
	samplerParentBasedAlwaysOff    = "parentbased_always_off"
	samplerParentBasedTraceIDRatio = "parentbased_traceidratio"
)

var samplers = []string{samplerAlwaysOn, samplerAlwaysOff, samplerTraceIDRatio,
	samplerParentBasedAlwaysOn, samplerParentBasedAlwaysOff, samplerParentBasedTraceIDRatio}

// parseSampler reads s case-insensitively (surrounding spaces ignored). It
// refuses anything but the six values above; OpenTelemetry's remote
// samplers (jaeger_remote, xray) are not built in.
func parseSampler(s string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	for _, e := range samplers {
		if v == e {
			return e, nil
		}
	}
	return "", fmt.Errorf("unknown sampler %q; use one of always_on, always_off, traceidratio, "+
		"parentbased_always_on, parentbased_always_off, parentbased_traceidratio", s)
}

// takesRatio reports whether the sampler s reads SamplerRatio.
func takesRatio(s string) bool {
	return s == samplerTraceIDRatio || s == samplerParentBasedTraceIDRatio
}

// checkSampler defaults and checks the sampler and its ratio, the settings
// of tracing's own.
func checkSampler(c *Config, src map[string]string) (err error) {
	c.Sampler, c.SamplerRatio, err = resolveSampler(c.Sampler, c.SamplerRatio, src)
	return err
}

// resolveSampler defaults and checks the sampler and its ratio.
func resolveSampler(s string, ratio *float64, src map[string]string) (string, *float64, error) {
	if s == "" {
		s = samplerParentBasedAlwaysOn
	}
	s, err := parseSampler(s)
	if err != nil {
		return s, ratio, sig.Fail(src, "sampler", "%v", err)
	}
	if ratio == nil {
		return s, nil, nil
	}
	if !takesRatio(s) {
		return s, ratio, sig.Fail(src, "sampler_ratio", "the %s sampler takes no ratio; use traceidratio or parentbased_traceidratio, or unset the ratio", s)
	}
	if r := *ratio; math.IsNaN(r) || r < 0 || r > 1 {
		return s, ratio, sig.Fail(src, "sampler_ratio", "must be a number from 0 to 1, got %v", r)
	}
	return s, ratio, nil
}

// OpenTelemetry's sampler variables, read when SVC_TRACING_* left the
// sampler unset.
const (
	envSampler    = "OTEL_TRACES_SAMPLER"
	envSamplerArg = "OTEL_TRACES_SAMPLER_ARG"
)

// samplerFallbacks reads OTEL_TRACES_SAMPLER and, for the samplers that
// take one, OTEL_TRACES_SAMPLER_ARG; OpenTelemetry ignores the argument of
// the others, and so does this.
func samplerFallbacks(c *Config, src map[string]string) error {
	if c.Sampler == "" {
		if v := otelcore.Lookup(envSampler); v != "" {
			s, err := parseSampler(v)
			if err != nil {
				return &ConfigError{Signal: "tracing", Setting: envSampler, Field: "sampler", Reason: err.Error()}
			}
			c.Sampler, src["sampler"] = s, envSampler
		}
	}
	// The sampler may still be as SVC_TRACING_SAMPLER spelled it.
	if s, _ := parseSampler(c.Sampler); c.SamplerRatio != nil || !takesRatio(s) {
		return nil
	}
	v := otelcore.Lookup(envSamplerArg)
	if v == "" {
		return nil
	}
	r, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return &ConfigError{Signal: "tracing", Setting: envSamplerArg, Field: "sampler_ratio", Reason: fmt.Sprintf("%q is not a number from 0 to 1", v)}
	}
	c.SamplerRatio, src["sampler_ratio"] = &r, envSamplerArg
	return nil
}

// sdkSampler builds the SDK's sampler for a resolved config.
func sdkSampler(s string, ratio *float64) sdktrace.Sampler {
	r := 1.0
	if ratio != nil {
		r = *ratio
	}
	switch s {
	case samplerAlwaysOn:
		return sdktrace.AlwaysSample()
	case samplerAlwaysOff:
		return sdktrace.NeverSample()
	case samplerTraceIDRatio:
		return sdktrace.TraceIDRatioBased(r)
	case samplerParentBasedAlwaysOff:
		return sdktrace.ParentBased(sdktrace.NeverSample())
	case samplerParentBasedTraceIDRatio:
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(r))
	}
	return sdktrace.ParentBased(sdktrace.AlwaysSample())
}
