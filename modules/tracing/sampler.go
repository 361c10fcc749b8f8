package tracing

import (
	"fmt"
	"math"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Sampler names a sampling rule, with OpenTelemetry's OTEL_TRACES_SAMPLER
// values. Values are read case-insensitively.
type Sampler string

// The samplers.
const (
	// SamplerAlwaysOn records every trace, ignoring the caller's decision.
	SamplerAlwaysOn Sampler = "always_on"
	// SamplerAlwaysOff records nothing.
	SamplerAlwaysOff Sampler = "always_off"
	// SamplerTraceIDRatio records the SamplerRatio share of traces, by
	// trace ID, ignoring the caller's decision.
	SamplerTraceIDRatio Sampler = "traceidratio"
	// SamplerParentBasedAlwaysOn follows the caller's sampled flag and
	// records every trace that starts here. It is the default.
	SamplerParentBasedAlwaysOn Sampler = "parentbased_always_on"
	// SamplerParentBasedAlwaysOff follows the caller's sampled flag and
	// records no trace that starts here.
	SamplerParentBasedAlwaysOff Sampler = "parentbased_always_off"
	// SamplerParentBasedTraceIDRatio follows the caller's sampled flag and
	// records the SamplerRatio share of the traces that start here.
	SamplerParentBasedTraceIDRatio Sampler = "parentbased_traceidratio"
)

var samplers = []Sampler{SamplerAlwaysOn, SamplerAlwaysOff, SamplerTraceIDRatio,
	SamplerParentBasedAlwaysOn, SamplerParentBasedAlwaysOff, SamplerParentBasedTraceIDRatio}

// ParseSampler reads s case-insensitively (surrounding spaces ignored). It
// refuses anything but the six values above; OpenTelemetry's remote
// samplers (jaeger_remote, xray) are not built in.
func ParseSampler(s string) (Sampler, error) {
	v := Sampler(strings.ToLower(strings.TrimSpace(s)))
	for _, e := range samplers {
		if v == e {
			return e, nil
		}
	}
	return "", fmt.Errorf("unknown sampler %q; use one of always_on, always_off, traceidratio, "+
		"parentbased_always_on, parentbased_always_off, parentbased_traceidratio", s)
}

// UnmarshalText lets caarlos0/env and encoding/json read a Sampler
// case-insensitively.
func (s *Sampler) UnmarshalText(b []byte) error {
	v, err := ParseSampler(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// TakesRatio reports whether the sampler reads SamplerRatio.
func (s Sampler) TakesRatio() bool {
	return s == SamplerTraceIDRatio || s == SamplerParentBasedTraceIDRatio
}

// resolveSampler defaults and checks the sampler and its ratio.
func resolveSampler(s Sampler, ratio *float64, src sources) (Sampler, *float64, error) {
	if s == "" {
		s = SamplerParentBasedAlwaysOn
	}
	s, err := ParseSampler(string(s))
	if err != nil {
		return s, ratio, src.fail("sampler", "%v", err)
	}
	if ratio == nil {
		return s, nil, nil
	}
	if !s.TakesRatio() {
		return s, ratio, src.fail("sampler_ratio", "the %s sampler takes no ratio; use traceidratio or parentbased_traceidratio, or unset the ratio", s)
	}
	if r := *ratio; math.IsNaN(r) || r < 0 || r > 1 {
		return s, ratio, src.fail("sampler_ratio", "must be a number from 0 to 1, got %v", r)
	}
	return s, ratio, nil
}

// sdkSampler builds the SDK's sampler for a resolved config.
func sdkSampler(s Sampler, ratio *float64) sdktrace.Sampler {
	r := 1.0
	if ratio != nil {
		r = *ratio
	}
	switch s {
	case SamplerAlwaysOn:
		return sdktrace.AlwaysSample()
	case SamplerAlwaysOff:
		return sdktrace.NeverSample()
	case SamplerTraceIDRatio:
		return sdktrace.TraceIDRatioBased(r)
	case SamplerParentBasedAlwaysOff:
		return sdktrace.ParentBased(sdktrace.NeverSample())
	case SamplerParentBasedTraceIDRatio:
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(r))
	}
	return sdktrace.ParentBased(sdktrace.AlwaysSample())
}
