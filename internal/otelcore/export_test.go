package otelcore

import (
	"encoding/base64"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/svckit/svc/secret"
)

func TestResource(t *testing.T) {
	attrs := Resource("orders", map[string]string{"service.name": "spoofed", "deployment.environment": "prod"}).Attributes()
	got := map[string]string{}
	for _, kv := range attrs {
		got[string(kv.Key)] = kv.Value.AsString()
	}
	want := map[string]string{"service.name": "orders", "deployment.environment": "prod",
		"telemetry.sdk.name": "opentelemetry", "telemetry.sdk.language": "go"}
	if !maps.Equal(got, want) {
		t.Fatalf("got %v, want %v (the field wins over an attribute of the same key)", got, want)
	}
	for _, kv := range Resource("", nil).Attributes() {
		if kv.Key == "service.name" && kv.Value.AsString() != "unknown_service:"+filepath.Base(os.Args[0]) {
			t.Fatalf("unnamed service: %q", kv.Value.AsString())
		}
	}
}

func TestExportURL(t *testing.T) {
	tests := []struct {
		ep   secret.URL
		grpc bool
		want string
	}{
		{want: "http://localhost:4318/v1/traces"},
		{grpc: true, want: "http://localhost:4317"},
		{ep: "https://u:p@c:4318/v1/traces", want: "https://c:4318/v1/traces"},
		{ep: "https://c:4317", grpc: true, want: "https://c:4317"},
		{ep: "https://u:p@c/%zz", want: ""},
	}
	for _, tt := range tests {
		if got := ExportURL(tt.ep, tt.grpc, "/v1/traces"); got != tt.want {
			t.Errorf("ExportURL(%q, %v) = %q, want %q", tt.ep.Value(), tt.grpc, got, tt.want)
		}
	}
}

func TestExportHeaders(t *testing.T) {
	if h := (Secrets{}).ExportHeaders(); h == nil || len(h) != 0 {
		t.Fatalf("no headers: got %v, want an empty, non-nil map (so the exporter reads no environment)", h)
	}
	s := Secrets{Basic: Basic{Endpoint: "https://u:p@c"}, Headers: map[string]secret.String{"x-tenant": "acme"}}
	want := map[string]string{"x-tenant": "acme", "Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("u:p"))}
	if got := s.ExportHeaders(); !maps.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
