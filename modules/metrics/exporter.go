package metrics

// Exporter names where metrics go, as SVC_METRICS_EXPORTER spells it;
// values are read case-insensitively:
//
//   - "auto" (the default) resolves to "otlp-http" when an endpoint is
//     configured, else to "none".
//   - "otlp-http" pushes OTLP over HTTP (protobuf) every export_interval;
//     package modules/metrics/otlphttp links it.
//   - "otlp-grpc" pushes OTLP over gRPC every export_interval; package
//     modules/metrics/otlpgrpc links it.
//   - "prometheus" keeps metrics for scraping through Handler; package
//     modules/metrics/prometheus links it.
//   - "console" writes metrics as JSON lines every export_interval (to
//     standard output unless WithConsoleWriter says otherwise); package
//     modules/metrics/console links it.
//   - "none" disables the component: inactive, no-op meters.
//
// Any other value is refused with a *ConfigError.
type Exporter string
