package metrics

import (
	"fmt"
	"strings"
)

// Exporter names where metrics go. Values are read case-insensitively.
type Exporter string

// The exporters SVC_METRICS_EXPORTER names.
const (
	// ExporterAuto resolves to ExporterOTLPHTTP when an endpoint is
	// configured, else to ExporterNone. It is the default.
	ExporterAuto Exporter = "auto"
	// ExporterOTLPHTTP pushes OTLP over HTTP (protobuf) every export_interval.
	// Package modules/metrics/otlphttp links it.
	ExporterOTLPHTTP Exporter = "otlp-http"
	// ExporterOTLPGRPC pushes OTLP over gRPC every export_interval.
	// Package modules/metrics/otlpgrpc links it.
	ExporterOTLPGRPC Exporter = "otlp-grpc"
	// ExporterPrometheus keeps metrics for scraping through Handler.
	// Package modules/metrics/prometheus links it.
	ExporterPrometheus Exporter = "prometheus"
	// ExporterConsole writes metrics as JSON lines every export_interval
	// (to standard output unless WithConsoleWriter says otherwise).
	// Package modules/metrics/console links it.
	ExporterConsole Exporter = "console"
	// ExporterNone disables the component: inactive, no-op meters.
	ExporterNone Exporter = "none"
)

var exporters = []Exporter{ExporterAuto, ExporterOTLPHTTP, ExporterOTLPGRPC, ExporterPrometheus, ExporterConsole, ExporterNone}

// ParseExporter reads s case-insensitively (surrounding spaces ignored). It
// refuses anything but the six values above.
func ParseExporter(s string) (Exporter, error) {
	v := Exporter(strings.ToLower(strings.TrimSpace(s)))
	for _, e := range exporters {
		if v == e {
			return e, nil
		}
	}
	return "", fmt.Errorf("unknown exporter %q; use one of auto, otlp-http, otlp-grpc, prometheus, console, none", s)
}

// UnmarshalText lets caarlos0/env and encoding/json read an Exporter
// case-insensitively.
func (e *Exporter) UnmarshalText(b []byte) error {
	v, err := ParseExporter(string(b))
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// String returns the value, "auto" for the zero value.
func (e Exporter) String() string {
	if e == "" {
		return string(ExporterAuto)
	}
	return string(e)
}
