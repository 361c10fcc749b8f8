package main

import (
	"os/exec"
	"strings"
	"testing"
)

// heavy are the import-path prefixes a binary carries only when it exports
// metrics or keeps state on Redis: gRPC, the OTLP exporters and protobufs,
// the Prometheus client, the Redis client.
var heavy = []string{
	"google.golang.org/grpc",
	"google.golang.org/protobuf",
	"go.opentelemetry.io/otel/exporters/",
	"go.opentelemetry.io/proto/",
	"github.com/prometheus/",
	"github.com/redis/",
}

// TestLinksNoExporter holds issue 11's rule: an app on fxsvc.Errors and
// fxsvc.Serve, and the metrics and tracing cores themselves, link no
// exporter. cmd/example links every exporter its environment may choose.
func TestLinksNoExporter(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	tests := []struct {
		pkg     string
		must    []string // present, so the listing is known to be real
		mustNot []string
	}{
		{"github.com/svckit/svc/cmd/minimal",
			[]string{"github.com/svckit/svc/fxsvc", "github.com/svckit/svc/modules/errors"}, heavy},
		{"github.com/svckit/svc/modules/metrics",
			[]string{"go.opentelemetry.io/otel/sdk/metric"}, heavy},
		{"github.com/svckit/svc/modules/tracing",
			[]string{"go.opentelemetry.io/otel/sdk/trace"}, heavy},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			out, err := exec.Command(goTool, "list", "-deps", tt.pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", tt.pkg, err)
			}
			deps := map[string]bool{}
			for _, p := range strings.Fields(string(out)) {
				deps[p] = true
			}
			for _, p := range tt.must {
				if !deps[p] {
					t.Errorf("%s does not depend on %s", tt.pkg, p)
				}
			}
			for p := range deps {
				for _, bad := range tt.mustNot {
					if strings.HasPrefix(p, bad) {
						t.Errorf("%s links %s", tt.pkg, p)
					}
				}
			}
		})
	}
}
