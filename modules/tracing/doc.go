// Package tracing is svc's tracing component: an OpenTelemetry tracer
// provider for the life of the app, installed as the process-global one
// with the W3C trace-context and baggage propagator, so that a request's
// incoming traceparent is honoured and every span started from the global
// API (the server span, the outbound token client's fetches, the security
// events added to the request's span) is exported.
//
// # Configuration
//
// [New] reads SVC_TRACING_<FIELD> for every [Config] field through
// caarlos0/env (unless SVC_ENV_LOAD=false), then applies the options (code wins: [WithConfig] sets any
// field), then the OpenTelemetry fallbacks for fields still empty (OTEL_SERVICE_NAME,
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_TRACES_HEADERS, OTEL_EXPORTER_OTLP_HEADERS,
// OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG), then the defaults.
// [FromConfig] uses a Config as given and reads no environment (the OTLP
// exporters of OpenTelemetry still read their own transport settings:
// OTEL_EXPORTER_OTLP_[TRACES_]COMPRESSION, _CERTIFICATE,
// _CLIENT_CERTIFICATE, _CLIENT_KEY). An invalid value fails construction
// with a [*ConfigError] naming the variable, option or field to fix. The
// settings metrics has too (endpoint, headers, Basic credentials, service
// name, resource attributes, export and shutdown timeouts) are [Export]'s,
// embedded in Config, and follow one set of rules in both components.
//
// The exporter is auto (otlp-http when an endpoint is configured, else
// none), otlp-http, otlp-grpc, console or none, read case-insensitively.
// With none the component is inactive: it installs nothing, the global
// tracer provider stays OpenTelemetry's no-op one, and tracing costs
// nothing, so it may be registered unconditionally.
//
// # Exporters are linked by import
//
// Each exporter lives in a leaf package that registers itself, so a binary
// links only the exporters it imports: without an OTLP leaf it links no
// OTLP code and none of the gRPC packages the OpenTelemetry OTLP exporters
// (HTTP included) depend on:
//
//	import (
//		_ "github.com/svckit/svc/modules/tracing/otlphttp"
//		_ "github.com/svckit/svc/modules/tracing/otlpgrpc"
//		_ "github.com/svckit/svc/modules/tracing/console"
//	)
//
// An exporter configured but not imported fails construction with a
// *ConfigError naming the variable and the import to add.
//
// Secrets (the endpoint's embedded credentials, header values, the Basic
// password) are held in package secret's types and print as *** through
// fmt, JSON, slog and zap, and are redacted from export errors.
//
// # Global provider
//
// While an active component is open, the process-global tracer provider
// (otel.GetTracerProvider) starts spans on its provider and the global
// propagator reads and writes traceparent, tracestate and baggage; the
// provider and propagator found before are restored on Close. The global
// provider is a forwarding bridge rather than the SDK provider itself
// because OpenTelemetry wires its global delegate only once per process: a
// tracer taken from the global before the first app started would
// otherwise stay bound to the first app's provider forever. Two apps
// started one after the other in one process (tests) each get their own
// spans.
//
// # Stopping
//
// Close flushes pending spans within shutdown_timeout. A flush that runs
// out, or that the collector refuses, is a logged warning, never a failed
// stop.
package tracing
