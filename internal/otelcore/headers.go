// Package otelcore is the OpenTelemetry exporter core that the metrics
// and tracing components share: the settings both have (Export), reading
// them from SVC_<SIGNAL>_* and the OTEL_* fallbacks, the option builder
// and WithConfig, the endpoint, header, Basic credential and protocol
// rules, the naming of the setting to fix (ConfigError), the exporter
// registry a leaf package links into, what an exporter is handed (Setup),
// the open-once, close-with-a-bounded-flush lifecycle (Component), the
// order in which components become process-global (Installer), and the
// redaction of secrets from export errors. A Signal says what sets metrics
// apart from tracing; each package keeps only its own signal's parts.
package otelcore

import (
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/svckit/svc/secret"
)

// ParseHeaders reads the OTEL_EXPORTER_OTLP_HEADERS format: comma-separated
// key=value pairs with percent-encoded values. Its errors name the
// offending key or position, never a value.
func ParseHeaders(s string) (map[string]secret.String, error) {
	kv, err := ParseKeyValues(s, true)
	if err != nil {
		return nil, err
	}
	out := make(map[string]secret.String, len(kv))
	for k, v := range kv {
		out[k] = secret.String(v)
	}
	return out, nil
}

// ParseKeyValues reads "k=v,k2=v2" with percent-encoded values (the W3C
// baggage form the OTEL_* variables use). Empty members are skipped. With
// secretValues the errors never quote a value.
func ParseKeyValues(s string, secretValues bool) (map[string]string, error) {
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
			if secretValues && !httpguts.ValidHeaderFieldName(k) {
				// "Authorization: Bearer abc=%zz": the key holds the value.
				return nil, fmt.Errorf("the value of member %d is not percent-encoded correctly", i+1)
			}
			return nil, fmt.Errorf("the value of %q is not percent-encoded correctly", k)
		}
		out[k] = dec
	}
	return out, nil
}

// CheckHeaders refuses header names and values net/http would refuse at
// the first export, so the mistake shows at construction instead. Its
// errors name a valid header, never its value, and never quote an invalid
// name: written "name: value" (curl's form), a token ending in "=" makes
// the name hold the value.
func CheckHeaders(h map[string]secret.String) error {
	for k, v := range h {
		if !httpguts.ValidHeaderFieldName(k) {
			return fmt.Errorf("a header name holds a space, colon or other character a name may not " +
				"(write name=value pairs; the name is not shown, it may hold a value)")
		}
		if !httpguts.ValidHeaderFieldValue(v.Value()) {
			return fmt.Errorf("the value of header %q holds a control character", k)
		}
	}
	return nil
}

// HasHeader reports whether h holds name, compared without regard to case
// as HTTP header names are.
func HasHeader(h map[string]secret.String, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}
