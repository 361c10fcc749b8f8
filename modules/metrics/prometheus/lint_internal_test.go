package prometheus

import (
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

func TestLintableName(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind sdkmetric.InstrumentKind
		want string // "" when the view leaves the instrument alone
	}{
		{"go.goroutine.count", sdkmetric.InstrumentKindObservableUpDownCounter, "go.goroutine"},
		{"queue.count", sdkmetric.InstrumentKindUpDownCounter, "queue"},
		{"pool.count", sdkmetric.InstrumentKindGauge, "pool"},
		{"pool.count", sdkmetric.InstrumentKindObservableGauge, "pool"},
		{"calls.count", sdkmetric.InstrumentKindCounter, ""},
		{"calls.count", sdkmetric.InstrumentKindObservableCounter, ""},
		{"latency.count", sdkmetric.InstrumentKindHistogram, ""},
		{"go.memory.used", sdkmetric.InstrumentKindObservableUpDownCounter, ""},
		{".count", sdkmetric.InstrumentKindGauge, ""},
	} {
		s, ok := lintableName(sdkmetric.Instrument{Name: tc.name, Kind: tc.kind, Description: "d", Unit: "{x}"})
		if ok != (tc.want != "") || s.Name != tc.want || (ok && (s.Description != "d" || s.Unit != "{x}")) {
			t.Errorf("%s (kind %v): got %+v, %v; want %q", tc.name, tc.kind, s, ok, tc.want)
		}
	}
}
