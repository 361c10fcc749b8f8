// Package prometheus links the prometheus metrics exporter: metrics kept
// for scraping, served by metrics.Handler. Import it for
// its effect, or for Registry:
//
//	import _ "github.com/svckit/svc/modules/metrics/prometheus"
//
// Without it a component whose exporter is prometheus (SVC_METRICS_EXPORTER
// or metrics.WithDefaultExporter) fails construction with a
// *metrics.ConfigError naming this import.
package prometheus

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/modules/metrics/internal/registry"
)

func init() {
	registry.Register("prometheus", registry.Factory{
		Prepare: func() any { return &state{reg: prom.NewRegistry()} },
		Reader:  reader,
		View:    lintableName,
	})
}

// lintableName drops ".count" from the name of an instrument that is not
// a counter or histogram: Prometheus reserves _count for a histogram's or
// summary's count, and promtool check metrics refuses a gauge that ends in
// it. OpenTelemetry's semantic conventions name some up-down counters so:
// the Go runtime's go.goroutine.count is exposed as go_goroutine. Counters
// get _total and histograms their own _count series, and keep their names;
// the OTLP exporters, which have no such rule, keep every name.
func lintableName(i sdkmetric.Instrument) (sdkmetric.Stream, bool) {
	switch i.Kind {
	case sdkmetric.InstrumentKindUpDownCounter, sdkmetric.InstrumentKindObservableUpDownCounter,
		sdkmetric.InstrumentKindGauge, sdkmetric.InstrumentKindObservableGauge:
	default:
		return sdkmetric.Stream{}, false
	}
	base, ok := strings.CutSuffix(i.Name, ".count")
	if !ok || base == "" {
		return sdkmetric.Stream{}, false
	}
	return sdkmetric.Stream{Name: base, Description: i.Description, Unit: i.Unit}, true
}

// state is one component's: each gets its own registry, because the OTel
// Prometheus exporter registers an unchecked collector, so a duplicate in
// a shared registry would only fail at scrape time.
type state struct {
	reg  *prom.Registry
	once sync.Once
	h    http.Handler
}

// ScrapeHandler is built once per component: promhttp handlers hold
// in-flight and error counters of their own.
func (s *state) ScrapeHandler() http.Handler {
	s.once.Do(func() { s.h = promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}) })
	return s.h
}

func reader(_ context.Context, s registry.Setup) (sdkmetric.Reader, error) {
	st, _ := s.State.(*state)
	if st == nil {
		return nil, errNoState
	}
	return otelprom.New(otelprom.WithRegisterer(st.reg))
}

// errNoState cannot happen while Prepare runs at construction; it keeps a
// broken core from panicking here.
var errNoState = errors.New("metrics/prometheus: the component has no registry")

// Registry returns the component's own Prometheus registry, the one
// metrics.Handler serves; register collectors of your own on it to have
// them scraped beside the component's metrics. It returns nil for m nil or
// a component whose exporter is not prometheus.
func Registry(m *metrics.Metrics) *prom.Registry {
	if st, ok := m.ExporterState().(*state); ok {
		return st.reg
	}
	return nil
}
