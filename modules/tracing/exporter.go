package tracing

// Exporter names where spans go. Values are read case-insensitively.
type Exporter string

// The exporter values.
const (
	// ExporterAuto resolves to ExporterOTLPHTTP when an endpoint is
	// configured, else to ExporterNone. It is the default.
	ExporterAuto Exporter = "auto"
	// ExporterOTLPHTTP sends OTLP over HTTP (protobuf). Link it with
	// import _ "github.com/svckit/svc/modules/tracing/otlphttp".
	ExporterOTLPHTTP Exporter = "otlp-http"
	// ExporterOTLPGRPC sends OTLP over gRPC. Link it with
	// import _ "github.com/svckit/svc/modules/tracing/otlpgrpc".
	ExporterOTLPGRPC Exporter = "otlp-grpc"
	// ExporterConsole writes spans as JSON (to standard output unless
	// WithConsoleWriter says otherwise). Link it with
	// import _ "github.com/svckit/svc/modules/tracing/console".
	ExporterConsole Exporter = "console"
	// ExporterNone disables the component: nothing is installed.
	ExporterNone Exporter = "none"
)
