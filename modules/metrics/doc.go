// Package metrics is svc's metrics component: an OpenTelemetry meter
// provider for the life of the app, instrument factories, measure wrappers
// that time and count calls, and a Prometheus pull endpoint.
//
// # Configuration
//
// [New] reads SVC_METRICS_<FIELD> for every [Config] field through
// caarlos0/env (unless SVC_ENV_LOAD=false), then applies the options (code wins: [WithConfig] sets
// any field, [WithDefaultExporter] the default exporter), then
// the OpenTelemetry fallbacks for fields still empty (OTEL_SERVICE_NAME,
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_METRICS_HEADERS, OTEL_EXPORTER_OTLP_HEADERS), then the
// defaults. [FromConfig] uses a Config as given and reads no environment.
// Either way, the OTLP exporters of OpenTelemetry still read their own
// transport settings: OTEL_EXPORTER_OTLP_[METRICS_]COMPRESSION,
// _CERTIFICATE, _CLIENT_CERTIFICATE, _CLIENT_KEY and the temporality and
// histogram-aggregation preferences (the way to give them a private CA).
// An invalid value fails construction with a [*ConfigError] naming the
// variable, option or field to fix. The settings tracing has too (endpoint,
// headers, Basic credentials, service name, resource attributes, export
// and shutdown timeouts) are [Export]'s, embedded in Config, and follow one
// set of rules in both components.
//
// The exporter is auto (otlp-http when an endpoint is configured, else
// none), otlp-http, otlp-grpc, prometheus, console or none, read
// case-insensitively. With none the component is inactive: it installs
// nothing and its meters are no-ops, so it may be registered
// unconditionally.
//
// # Exporters
//
// This package links no exporter: each lives in a package of its own that
// registers it when imported, so a binary carries gRPC, the OTLP
// protobufs or the Prometheus client only if it uses them:
//
//	import _ "github.com/svckit/svc/modules/metrics/otlphttp"     // otlp-http (and auto with an endpoint)
//	import _ "github.com/svckit/svc/modules/metrics/otlpgrpc"     // otlp-grpc
//	import _ "github.com/svckit/svc/modules/metrics/prometheus"   // prometheus; also prometheus.Registry
//	import _ "github.com/svckit/svc/modules/metrics/console"      // console
//	import _ "github.com/svckit/svc/modules/metrics/allexporters" // all four, for the environment to choose
//
// A component whose exporter resolves to one the binary does not link
// fails construction with a [*ConfigError] naming the setting that chose
// it and the import to add. none (and auto without an endpoint) needs no
// import.
//
// Secrets (the endpoint's embedded credentials, header values, the Basic
// password) are held in package secret's types and print as *** through
// fmt, JSON, slog and zap; Value reads them back.
//
// # Global provider
//
// While an active component is open the process-global meter provider
// (otel.GetMeterProvider) forwards to its provider, and the provider found
// before is restored on Close. The global is a forwarding bridge rather than
// the SDK provider itself because OpenTelemetry wires its global delegate
// only once per process: instruments made from the global before the first
// app started would otherwise stay bound to the first app's provider
// forever. Through the bridge every instrument, however early it was made,
// records into whichever component is open now, and into nothing when none
// is. Two apps started one after the other in one process (tests) each get
// their own metrics.
//
// # Measure
//
// [Wrap], [WrapErr], [WrapCtxErr], [WrapCtxResultErr] and their siblings
// wrap a function so each call records <name>.duration (histogram,
// seconds), <name>.calls (counter, outcome=success|error, error.type on
// failure) and, with [RecordInFlight], <name>.active. Names are fixed at
// wrap time and instruments resolved once per component, so wrapping at
// package init is fine; a call with no active component costs one atomic
// load and allocates nothing. A method is wrapped as a method value
// (metrics.WrapCtxErr(s.charge)).
//
// # Pull endpoint
//
// [Handler] serves the Prometheus text exposition of the component's own
// registry (package prometheus beside this one owns it: prometheus.Registry
// returns it). Route it where the app wants it, behind the app's own gate
// when it must not be public:
//
//	r.With(gate).Get("/metrics", metrics.Handler(m).ServeHTTP)
//
// With another exporter it answers 404 with an RFC 9457 problem body.
package metrics
