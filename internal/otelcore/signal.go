package otelcore

import (
	"strings"
	"time"
)

// Signal is what sets one signal's component apart from the other's: its
// names, its collector path, its defaults and its exporters. Metrics and
// Traces describe the two; everything else in this package is the same for
// both.
type Signal struct {
	// Name is the package's name ("metrics"): it starts every message and
	// names the options ("metrics.WithConfig").
	Name string
	// OTEL is the signal in OpenTelemetry's variable names ("METRICS" in
	// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) and, lowercased, its otlp-http
	// path (/v1/metrics).
	OTEL string
	// Pending names what a failed flush drops ("metrics", "spans").
	Pending string
	// Example is the number of seconds a refused duration suggests ("60").
	Example string
	// ExportTimeout and ShutdownTimeout are the defaults of Export's fields.
	ExportTimeout, ShutdownTimeout time.Duration
	// Linkable are the exporters that a leaf package links, in the order a
	// refusal lists them: otlp-http is linked by
	// github.com/svckit/svc/modules/<Name>/otlphttp, and so on.
	Linkable []string
	// AllLeaves is a package linking every exporter at once, or "".
	AllLeaves string
	// Own are the signal's own Config fields (Spec and GoName), beside
	// Exporter and Export's.
	Own []Field
	// Linked reports whether the binary links the exporter's leaf package.
	Linked func(exporter string) bool
	// Fallbacks, when set, fills the signal's own fields still empty from
	// OpenTelemetry's variables (cfg is a *Config), noting the variables in
	// src; a refusal is a *ConfigError.
	Fallbacks func(cfg any, src map[string]string) error
	// ErrNotStarted and ErrInactive are the signal's sentinels for a
	// component not opened yet and one without a provider.
	ErrNotStarted, ErrInactive error
}

// Metrics describes the metrics signal; linked is its registry's.
func Metrics(linked func(string) bool, notStarted, inactive error) *Signal {
	return &Signal{
		Name: "metrics", OTEL: "METRICS", Pending: "metrics", Example: "60",
		ExportTimeout: 30 * time.Second, ShutdownTimeout: 5 * time.Second,
		Linkable:  []string{"otlp-http", "otlp-grpc", "prometheus", "console"},
		AllLeaves: "github.com/svckit/svc/modules/metrics/allexporters",
		Own:       []Field{{Spec: "export_interval", GoName: "ExportInterval"}},
		Linked:    linked, ErrNotStarted: notStarted, ErrInactive: inactive,
	}
}

// Traces describes the tracing signal; linked is its registry's and
// fallbacks reads OpenTelemetry's sampler variables.
func Traces(linked func(string) bool, fallbacks func(any, map[string]string) error, notStarted, inactive error) *Signal {
	return &Signal{
		Name: "tracing", OTEL: "TRACES", Pending: "spans", Example: "1",
		// The OTLP exporters' own default export timeout; a shutdown
		// timeout short enough to fit fxsvc's default stop budget of 15 s
		// beside the server's drain (8 s) and the metrics flush (5 s):
		// spans are exported every few seconds while the app runs, so the
		// last flush holds little.
		ExportTimeout: 10 * time.Second, ShutdownTimeout: 1 * time.Second,
		Linkable: []string{"otlp-http", "otlp-grpc", "console"},
		Own:      []Field{{Spec: "sampler", GoName: "Sampler"}, {Spec: "sampler_ratio", GoName: "SamplerRatio"}},
		Linked:   linked, Fallbacks: fallbacks, ErrNotStarted: notStarted, ErrInactive: inactive,
	}
}

// path is the signal's otlp-http path: "/v1/metrics".
func (s *Signal) path() string { return "/v1/" + strings.ToLower(s.OTEL) }

// exporters are the values the exporter setting accepts.
func (s *Signal) exporters() []string {
	return append(append([]string{"auto"}, s.Linkable...), "none")
}

// leaf is the package whose import links exporter e.
func (s *Signal) leaf(e string) string {
	return "github.com/svckit/svc/modules/" + s.Name + "/" + strings.ReplaceAll(e, "-", "")
}

// EnvPrefix prefixes the signal's variables: "SVC_METRICS_".
func (s *Signal) EnvPrefix() string { return "SVC_" + strings.ToUpper(s.Name) + "_" }

// shared are the fields every signal's Config has: Exporter, then Export's.
var shared = []Field{
	{Spec: "exporter", GoName: "Exporter"},
	{Spec: "service_name", GoName: "ServiceName"},
	{Spec: "endpoint", GoName: "Endpoint"},
	{Spec: "headers", GoName: "Headers"},
	{Spec: "basic_auth_username", GoName: "BasicAuthUsername"},
	{Spec: "basic_auth_password", GoName: "BasicAuthPassword"},
	{Spec: "export_timeout", GoName: "ExportTimeout"},
	{Spec: "resource_attributes", GoName: "ResourceAttributes"},
	{Spec: "shutdown_timeout", GoName: "ShutdownTimeout"},
}

// withConfig names a Config field given to WithConfig.
func (s *Signal) withConfig(goName string) string {
	return "Config." + goName + " of " + s.Name + ".WithConfig"
}

// fields names every Config field of the signal for errors: each is set
// in code through WithConfig.
func (s *Signal) fields() Fields {
	fs := make(Fields, 0, len(shared)+len(s.Own))
	for _, f := range append(append([]Field(nil), shared...), s.Own...) {
		f.Option = s.withConfig(f.GoName)
		fs = append(fs, f)
	}
	return fs
}
