package metrics

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
