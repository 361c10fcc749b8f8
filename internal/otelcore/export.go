package otelcore

import (
	"net/url"
	"os"
	"path/filepath"
	"sort"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/svckit/svc/secret"
)

// Resource describes the service to the collector: serviceName (else
// OpenTelemetry's "unknown_service:<binary>") and attrs, in key order. It is
// built from the config only: the environment was read (or deliberately
// not) when the config was.
func Resource(serviceName string, attrs map[string]string) *resource.Resource {
	name := serviceName
	if name == "" {
		// OpenTelemetry's default for an unnamed service.
		name = "unknown_service:" + filepath.Base(os.Args[0])
	}
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	kvs := []attribute.KeyValue{
		attribute.String("telemetry.sdk.name", "opentelemetry"),
		attribute.String("telemetry.sdk.language", "go"),
	}
	for _, k := range keys {
		kvs = append(kvs, attribute.String(k, attrs[k]))
	}
	// service.name last, so the field wins over a resource attribute of the
	// same key.
	kvs = append(kvs, attribute.String("service.name", name))
	return resource.NewSchemaless(kvs...)
}

// ExportURL is the endpoint without embedded credentials (they travel as a
// Basic header) or OpenTelemetry's default collector address: gRPC's, or
// HTTP's with signalPath (e.g. "/v1/metrics"). Passing it always keeps the
// exporter from reading OTEL_EXPORTER_OTLP_*ENDPOINT on its own: the config
// already decided. An
// endpoint that does not parse (resolve refused it before) gives "", so no
// error path can quote it.
func ExportURL(endpoint secret.URL, grpc bool, signalPath string) string {
	if endpoint == "" {
		if grpc {
			return "http://localhost:4317"
		}
		return "http://localhost:4318" + signalPath
	}
	u, err := url.Parse(endpoint.Value())
	if err != nil {
		return ""
	}
	u.User = nil
	return u.String()
}

// ExportHeaders are the configured headers plus the Basic authorization.
// Always passed (even empty) so the exporter does not read
// OTEL_EXPORTER_OTLP_HEADERS on its own behind FromConfig's back.
func (s Secrets) ExportHeaders() map[string]string {
	h := make(map[string]string, len(s.Headers)+1)
	for k, v := range s.Headers {
		h[k] = v.Value()
	}
	if auth := s.AuthorizationHeader(); auth != "" {
		h["Authorization"] = auth.Value()
	}
	return h
}
