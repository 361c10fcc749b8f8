package tracing

import (
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpguts"

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
	kv, err := parseKeyValues(string(b), true)
	if err != nil {
		return err
	}
	out := make(Headers, len(kv))
	for k, v := range kv {
		out[k] = secret.String(v)
	}
	*h = out
	return nil
}

// parseKeyValues reads "k=v,k2=v2" with percent-encoded values (the W3C
// baggage form the OTEL_* variables use). Empty members are skipped. With
// secretValues the errors never quote a value.
func parseKeyValues(s string, secretValues bool) (map[string]string, error) {
	out := map[string]string{}
	for i, member := range strings.Split(s, ",") {
		if strings.TrimSpace(member) == "" {
			continue
		}
		k, v, ok := strings.Cut(member, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			if secretValues {
				return nil, fmt.Errorf("member %d is not key=value", i+1)
			}
			return nil, fmt.Errorf("member %d %q is not key=value", i+1, member)
		}
		dec, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("the value of %q is not percent-encoded correctly", k)
		}
		out[k] = dec
	}
	return out, nil
}

// checkHeaders refuses header names and values net/http would refuse at
// the first export, so the mistake shows at construction instead.
func checkHeaders(h Headers) error {
	for k, v := range h {
		if !httpguts.ValidHeaderFieldName(k) {
			return fmt.Errorf("%q is not a valid header name", k)
		}
		if !httpguts.ValidHeaderFieldValue(v.Value()) {
			return fmt.Errorf("the value of header %q holds a control character", k)
		}
	}
	return nil
}
