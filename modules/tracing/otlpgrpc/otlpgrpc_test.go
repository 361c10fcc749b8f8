package otlpgrpc_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/svckit/svc/internal/otlptest"
	"github.com/svckit/svc/modules/tracing"
	_ "github.com/svckit/svc/modules/tracing/otlpgrpc"
)

// collector is a real gRPC OTLP trace service on loopback.
type collector struct {
	coltracepb.UnimplementedTraceServiceServer
	mu    sync.Mutex
	names []string
	trace []string
	auth  []string
}

func (c *collector) Export(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.auth = append(c.auth, strings.Join(md.Get("authorization"), ","))
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.names = append(c.names, s.GetName())
				c.trace = append(c.trace, hex.EncodeToString(s.GetTraceId()))
			}
		}
	}
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func newCollector(t *testing.T) (*collector, string) {
	t.Helper()
	c := &collector{}
	return c, otlptest.ServeGRPC(t, func(s *grpc.Server) { coltracepb.RegisterTraceServiceServer(s, c) })
}

func clearEnv(t *testing.T) {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "SVC_TRACING_") || strings.HasPrefix(k, "OTEL_") || k == "SVC_ENV_LOAD" {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
}

// SVC_TRACING_EXPORTER=otlp-grpc sends spans over gRPC, plaintext for an
// http:// endpoint, with the Basic authorization as metadata.
func TestGRPCExport(t *testing.T) {
	clearEnv(t)
	c, endpoint := newCollector(t)
	t.Setenv("SVC_TRACING_EXPORTER", "otlp-grpc")
	t.Setenv("SVC_TRACING_ENDPOINT", endpoint)
	t.Setenv("SVC_TRACING_BASIC_AUTH_USERNAME", "u")
	t.Setenv("SVC_TRACING_BASIC_AUTH_PASSWORD", "p")
	tr, err := tracing.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, span := otel.Tracer("svc.test").Start(context.Background(), "over-grpc")
	span.End()
	// Close flushes: the span must arrive before it returns.
	if err := tr.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.names) != 1 || c.names[0] != "over-grpc" || c.trace[0] != span.SpanContext().TraceID().String() {
		t.Fatalf("collector got %v %v", c.names, c.trace)
	}
	if c.auth[0] != "Basic "+base64.StdEncoding.EncodeToString([]byte("u:p")) {
		t.Fatalf("authorization metadata %q", c.auth[0])
	}
}

// This test binary links otlp-grpc only: auto with an endpoint picks
// otlp-http, which is missing, and the error names the endpoint's variable
// (what made auto pick it, however auto was chosen) and the import to add.
func TestAutoNeedsTheHTTPExporterLinked(t *testing.T) {
	clearEnv(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
	_, err := tracing.New()
	var ce *tracing.ConfigError
	if !asConfigError(err, &ce) || ce.Setting != "OTEL_EXPORTER_OTLP_ENDPOINT" ||
		!strings.Contains(ce.Reason, `import _ "github.com/svckit/svc/modules/tracing/otlphttp"`) ||
		!strings.Contains(ce.Reason, "auto") {
		t.Fatalf("error %v", err)
	}
	t.Setenv("SVC_TRACING_EXPORTER", "auto")
	_, err = tracing.New()
	if !asConfigError(err, &ce) || ce.Setting != "OTEL_EXPORTER_OTLP_ENDPOINT" {
		t.Fatalf("with the exporter set to auto explicitly: %v", err)
	}
}

func asConfigError(err error, target **tracing.ConfigError) bool { return errors.As(err, target) }
