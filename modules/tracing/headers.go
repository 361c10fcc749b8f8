package tracing

import (
	"github.com/svckit/svc/internal/otlpconf"
	"github.com/svckit/svc/secret"
)

// Headers are extra headers sent with every OTLP export. Values are secrets:
// they print as *** and read back with Value.
//
// Read from the environment they use the OTEL_EXPORTER_OTLP_HEADERS format:
// comma-separated key=value pairs with percent-encoded values, for example
// "x-api-key=abc,x-tenant=acme%20corp".
type Headers map[string]secret.String

// UnmarshalText parses the OTEL_EXPORTER_OTLP_HEADERS format. Its errors
// name the offending key or position, never a value.
func (h *Headers) UnmarshalText(b []byte) error {
	out, err := otlpconf.ParseHeaders(string(b))
	if err != nil {
		return err
	}
	*h = out
	return nil
}
