package tracing

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Exporter names where spans go. Values are read case-insensitively.
type Exporter string

// The exporter values.
const (
	// ExporterAuto resolves to ExporterOTLPHTTP when an endpoint is
	// configured, else to ExporterNone. It is the default.
	ExporterAuto Exporter = "auto"
	// ExporterOTLPHTTP sends OTLP over HTTP (protobuf). Link it with
	// import _ "github.com/svckit/svc/modules/tracing/otlptracehttp".
	ExporterOTLPHTTP Exporter = "otlp-http"
	// ExporterOTLPGRPC sends OTLP over gRPC. Link it with
	// import _ "github.com/svckit/svc/modules/tracing/otlptracegrpc".
	ExporterOTLPGRPC Exporter = "otlp-grpc"
	// ExporterConsole writes spans as JSON (to standard output unless
	// WithConsoleWriter says otherwise). Link it with
	// import _ "github.com/svckit/svc/modules/tracing/console".
	ExporterConsole Exporter = "console"
	// ExporterNone disables the component: nothing is installed.
	ExporterNone Exporter = "none"
)

var exporters = []Exporter{ExporterAuto, ExporterOTLPHTTP, ExporterOTLPGRPC, ExporterConsole, ExporterNone}

// leafPackages names the package that registers each linkable exporter,
// for the error that asks for its import.
var leafPackages = map[Exporter]string{
	ExporterOTLPHTTP: "github.com/svckit/svc/modules/tracing/otlptracehttp",
	ExporterOTLPGRPC: "github.com/svckit/svc/modules/tracing/otlptracegrpc",
	ExporterConsole:  "github.com/svckit/svc/modules/tracing/console",
}

// ParseExporter reads s case-insensitively (surrounding spaces ignored). It
// refuses anything but auto, otlp-http, otlp-grpc, console and none.
func ParseExporter(s string) (Exporter, error) {
	v := Exporter(strings.ToLower(strings.TrimSpace(s)))
	for _, e := range exporters {
		if v == e {
			return e, nil
		}
	}
	return "", fmt.Errorf("unknown exporter %q; use one of auto, otlp-http, otlp-grpc, console, none", s)
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

// ExportSettings is what an exporter factory is given: everything already
// resolved, so a factory reads none of them from the environment
// (OpenTelemetry's OTLP exporters still read their transport settings:
// compression, certificates).
type ExportSettings struct {
	// Endpoint is the collector URL without credentials: the configured
	// one, or OpenTelemetry's default address for the exporter.
	Endpoint string
	// Headers go on every export, the Basic authorization included. Their
	// values are secrets: a factory never logs them.
	Headers map[string]string
	// Timeout bounds one export.
	Timeout time.Duration
	// Console is where the console exporter writes.
	Console io.Writer
}

// ExporterFactory builds a span exporter. Open calls it once per
// component.
type ExporterFactory func(ctx context.Context, s ExportSettings) (sdktrace.SpanExporter, error)

var (
	registryMu sync.RWMutex
	registry   = map[Exporter]ExporterFactory{}
)

// RegisterExporter makes an exporter available to every component. The
// leaf packages (otlptracehttp, otlptracegrpc, console) call it from init,
// so a binary links only the exporters it imports. It panics, like
// database/sql.Register, on a nil factory, on auto, none or an unknown
// name, and on a second registration of one name: all are programming
// errors found at start-up.
func RegisterExporter(e Exporter, f ExporterFactory) {
	if f == nil {
		panic("tracing: RegisterExporter with a nil factory")
	}
	if _, ok := leafPackages[e]; !ok {
		panic(fmt.Sprintf("tracing: RegisterExporter(%q): only otlp-http, otlp-grpc and console are built by factories", e))
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[e]; dup {
		panic(fmt.Sprintf("tracing: RegisterExporter(%q) called twice", e))
	}
	registry[e] = f
}

func factoryFor(e Exporter) (ExporterFactory, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	f, ok := registry[e]
	return f, ok
}
