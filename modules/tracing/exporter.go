package tracing

// Exporter names where spans go, as SVC_TRACING_EXPORTER spells it; values
// are read case-insensitively:
//
//   - "auto" (the default) resolves to "otlp-http" when an endpoint is
//     configured, else to "none".
//   - "otlp-http" sends OTLP over HTTP (protobuf); link it with
//     import _ "github.com/svckit/svc/modules/tracing/otlphttp".
//   - "otlp-grpc" sends OTLP over gRPC; link it with
//     import _ "github.com/svckit/svc/modules/tracing/otlpgrpc".
//   - "console" writes spans as JSON (to standard output unless
//     WithConsoleWriter says otherwise); link it with
//     import _ "github.com/svckit/svc/modules/tracing/console".
//   - "none" disables the component: nothing is installed.
//
// Any other value is refused with a *ConfigError.
type Exporter string
