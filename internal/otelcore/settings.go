package otelcore

import (
	"maps"
	"time"

	"github.com/svckit/svc/secret"
)

// Export is the part of a signal's Config that every signal has: where the
// data goes, with what credentials, describing which service, and how
// long an export and the final flush may take. Package metrics and package
// tracing embed it in their Config (as metrics.Export, tracing.Export), so
// its fields read as the Config's own: cfg.Endpoint. The env tags name the
// variables under the signal's prefix (SVC_METRICS_ENDPOINT, ...). Zero
// fields mean unset.
//
// Printing it (fmt, JSON, zap, slog) shows Endpoint with its credentials
// masked, and the Headers values and BasicAuthPassword as ***.
type Export struct {
	// ServiceName is the service.name resource attribute. Falls back to
	// OTEL_SERVICE_NAME; OpenTelemetry's "unknown_service:<program>" when
	// still empty.
	ServiceName string `env:"SERVICE_NAME" json:"service_name,omitempty"`
	// Endpoint is the OTLP collector address. Falls back to
	// OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT (used as given; no path means
	// "/"), then OTEL_EXPORTER_OTLP_ENDPOINT (a base URL: the signal's path,
	// /v1/metrics or /v1/traces, is appended for otlp-http). An otlp-http
	// endpoint without a path gets the signal's path. Credentials embedded
	// in it (https://user:pass@host) are sent as Basic authorization, never
	// in the URL.
	Endpoint secret.URL `env:"ENDPOINT" json:"endpoint,omitempty"`
	// Headers go on every OTLP export; their values are secrets. Falls back
	// to OTEL_EXPORTER_OTLP_<SIGNAL>_HEADERS, then
	// OTEL_EXPORTER_OTLP_HEADERS. From the environment they use that format:
	// comma-separated key=value pairs with percent-encoded values
	// ("x-api-key=abc,x-tenant=acme%20corp").
	Headers map[string]secret.String `env:"HEADERS" json:"headers,omitempty"`
	// BasicAuthUsername is set together with BasicAuthPassword; sent as
	// "Authorization: Basic base64(username:password)" (RFC 7617).
	BasicAuthUsername string `env:"BASIC_AUTH_USERNAME" json:"basic_auth_username,omitempty"`
	// BasicAuthPassword is set together with BasicAuthUsername.
	BasicAuthPassword secret.String `env:"BASIC_AUTH_PASSWORD" json:"basic_auth_password,omitempty"`
	// ExportTimeout bounds one export. Environment values are seconds
	// ("10", "0.5") or Go durations ("500ms").
	ExportTimeout time.Duration `env:"EXPORT_TIMEOUT" json:"export_timeout,omitempty"`
	// ResourceAttributes are extra resource attributes; from the
	// environment as "k=v,k2=v2" with percent-encoded values.
	ResourceAttributes map[string]string `env:"RESOURCE_ATTRIBUTES" json:"resource_attributes,omitempty"`
	// ShutdownTimeout bounds the flush when the app stops; a flush that
	// runs out is abandoned with a warning.
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" json:"shutdown_timeout,omitempty"`
}

// CloneExport returns e with maps of its own, so the caller's stay the
// caller's. (A function, not a method: Export's methods would show on both
// signals' public Config.)
func CloneExport(e Export) Export {
	e.Headers = maps.Clone(e.Headers)
	e.ResourceAttributes = maps.Clone(e.ResourceAttributes)
	return e
}

func (e Export) basic() Basic {
	return Basic{Endpoint: e.Endpoint, Username: e.BasicAuthUsername, Password: e.BasicAuthPassword}
}

func (e Export) secrets() Secrets { return Secrets{Basic: e.basic(), Headers: e.Headers} }

// RedactExport hides every secret of e in err (see Redact).
func RedactExport(err error, e Export) error { return Redact(err, e.secrets()) }
