package tracing_test

import (
	"io"
	"testing"

	"github.com/svckit/svc/modules/tracing"
)

// The sampler table: root spans, and children of a sampled and of an
// unsampled remote parent.
func TestSamplers(t *testing.T) {
	for _, tc := range []struct {
		sampler                string
		ratio                  *float64
		root, sampled, unsampl bool
	}{
		{"always_on", nil, true, true, true},
		{"always_off", nil, false, false, false},
		{"traceidratio", ptr(0), false, false, false},
		{"traceidratio", ptr(1), true, true, true},
		{"parentbased_always_on", nil, true, true, false},
		{"parentbased_always_off", nil, false, true, false},
		{"parentbased_traceidratio", ptr(0), false, true, false},
		{"", nil, true, true, false}, // the default: parent-based always on
	} {
		t.Run(string(tc.sampler), func(t *testing.T) {
			tr, err := tracing.FromConfig(tracing.Config{Exporter: "console", Sampler: tc.sampler, SamplerRatio: tc.ratio},
				tracing.WithConsoleWriter(io.Discard))
			if err != nil {
				t.Fatal(err)
			}
			open(t, tr)
			got := [3]bool{startFrom("", "r").IsSampled(), startFrom(traceparent("01"), "s").IsSampled(), startFrom(traceparent("00"), "u").IsSampled()}
			if want := [3]bool{tc.root, tc.sampled, tc.unsampl}; got != want {
				t.Fatalf("sampled (root, sampled parent, unsampled parent) = %v, want %v", got, want)
			}
		})
	}
}

func ptr(f float64) *float64 { return &f }
