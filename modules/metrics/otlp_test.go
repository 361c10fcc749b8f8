package metrics_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/svckit/svc/internal/otlptest"
	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/secret"
)

// export is one OTLP export as a receiver saw it.
type export struct {
	path    string
	headers map[string]string // lower-case names
	req     *colmetricspb.ExportMetricsServiceRequest
}

type receiver struct {
	mu      sync.Mutex
	exports []export
}

func (r *receiver) add(e export) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exports = append(r.exports, e)
}

func (r *receiver) all() []export {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]export(nil), r.exports...)
}

// newHTTPReceiver is a real OTLP/HTTP receiver: it decodes the protobuf
// ExportMetricsServiceRequest and answers the protobuf response.
func newHTTPReceiver(t *testing.T) (*receiver, *httptest.Server) {
	t.Helper()
	rc := &receiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		req := &colmetricspb.ExportMetricsServiceRequest{}
		if err := proto.Unmarshal(body, req); err != nil {
			http.Error(w, "bad protobuf", http.StatusBadRequest)
			return
		}
		h := map[string]string{}
		for k := range r.Header {
			h[strings.ToLower(k)] = r.Header.Get(k)
		}
		rc.add(export{path: r.URL.Path, headers: h, req: req})
		out, _ := proto.Marshal(&colmetricspb.ExportMetricsServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return rc, srv
}

type grpcCollector struct {
	colmetricspb.UnimplementedMetricsServiceServer
	rc   *receiver
	hang bool
}

func (g *grpcCollector) Export(ctx context.Context, req *colmetricspb.ExportMetricsServiceRequest) (*colmetricspb.ExportMetricsServiceResponse, error) {
	if g.hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	md, _ := metadata.FromIncomingContext(ctx)
	h := map[string]string{}
	for k, v := range md {
		h[k] = strings.Join(v, ",")
	}
	g.rc.add(export{headers: h, req: req})
	return &colmetricspb.ExportMetricsServiceResponse{}, nil
}

// newGRPCReceiver is a real gRPC OTLP collector service on 127.0.0.1.
func newGRPCReceiver(t *testing.T, hang bool) (*receiver, string) {
	t.Helper()
	rc := &receiver{}
	url := otlptest.ServeGRPC(t, func(s *grpc.Server) {
		colmetricspb.RegisterMetricsServiceServer(s, &grpcCollector{rc: rc, hang: hang})
	})
	return rc, url
}

// sumOf finds metric name in the exports and returns its last int sum.
func sumOf(exps []export, name string) (int64, *metricspb.ResourceMetrics, bool) {
	for i := len(exps) - 1; i >= 0; i-- {
		for _, rm := range exps[i].req.GetResourceMetrics() {
			for _, sm := range rm.GetScopeMetrics() {
				for _, m := range sm.GetMetrics() {
					if m.GetName() == name && m.GetSum() != nil {
						dps := m.GetSum().GetDataPoints()
						if len(dps) > 0 {
							return dps[0].GetAsInt(), rm, true
						}
					}
				}
			}
		}
	}
	return 0, nil, false
}

func attr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.GetKey() == key {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}

// record opens m, counts, and closes it: the shutdown flush is the export
// the receiver checks, so no waiting on intervals.
func record(t *testing.T, m *metrics.Metrics, n int64) {
	t.Helper()
	if err := m.Open(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := m.Counter("svc.otlp.hits")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(ctx, n)
	if err := m.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

func TestOTLPHTTPExport(t *testing.T) {
	cleanEnv(t)
	rc, srv := newHTTPReceiver(t)
	m, err := metrics.New(
		metrics.WithConfig(metrics.Config{
			Exporter: "OTLP-HTTP",
			Export: metrics.Export{
				Endpoint:           secret.URL(srv.URL),
				Headers:            secretHeaders(map[string]string{"x-api-key": "k3y", "x-tenant": "acme corp"}),
				BasicAuthUsername:  "svc",
				BasicAuthPassword:  secret.String("pa55"),
				ServiceName:        "billing",
				ResourceAttributes: map[string]string{"deployment.environment": "test"},
			},
			ExportInterval: time.Hour,
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	record(t, m, 4)
	exps := rc.all()
	v, rm, ok := sumOf(exps, "svc.otlp.hits")
	if !ok || v != 4 {
		t.Fatalf("receiver got %v (%v) in %d exports", v, ok, len(exps))
	}
	e := exps[len(exps)-1]
	if e.path != "/v1/metrics" {
		t.Errorf("path = %q, want /v1/metrics", e.path)
	}
	if e.headers["authorization"] != basic("svc", "pa55") {
		t.Errorf("Authorization = %q", e.headers["authorization"])
	}
	if e.headers["x-api-key"] != "k3y" || e.headers["x-tenant"] != "acme corp" {
		t.Errorf("custom headers = %v", e.headers)
	}
	res := rm.GetResource().GetAttributes()
	if attr(res, "service.name") != "billing" || attr(res, "deployment.environment") != "test" {
		t.Errorf("resource = %v", res)
	}
}

// Environment only: OTEL_EXPORTER_OTLP_ENDPOINT (with credentials in the
// URL) and OTEL_EXPORTER_OTLP_HEADERS reach a real receiver through auto.
func TestOTLPHTTPFromEnvironment(t *testing.T) {
	rc, srv := newHTTPReceiver(t)
	withCreds := strings.Replace(srv.URL, "http://", "http://Aladdin:open%20sesame@", 1)
	setEnv(t, map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": withCreds,
		"OTEL_EXPORTER_OTLP_HEADERS":  "x-from-env=yes%21",
		"OTEL_SERVICE_NAME":           "from-env",
		"SVC_METRICS_EXPORT_INTERVAL": "3600",
	})
	m, err := metrics.New()
	if err != nil {
		t.Fatal(err)
	}
	if m.Exporter() != "otlp-http" {
		t.Fatalf("auto resolved to %q", m.Exporter())
	}
	record(t, m, 1)
	exps := rc.all()
	v, rm, ok := sumOf(exps, "svc.otlp.hits")
	if !ok || v != 1 {
		t.Fatalf("receiver got %v (%v)", v, ok)
	}
	e := exps[len(exps)-1]
	if e.headers["authorization"] != "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==" || e.headers["x-from-env"] != "yes!" || e.path != "/v1/metrics" {
		t.Errorf("export = %s %v", e.path, e.headers)
	}
	if attr(rm.GetResource().GetAttributes(), "service.name") != "from-env" {
		t.Error("OTEL_SERVICE_NAME not used")
	}
}

func TestOTLPGRPCExport(t *testing.T) {
	cleanEnv(t)
	rc, addr := newGRPCReceiver(t, false)
	m, err := metrics.FromConfig(metrics.Config{
		Exporter:       "otlp-grpc",
		ExportInterval: time.Hour,
		Export: metrics.Export{
			Endpoint:          secret.URL(addr),
			Headers:           map[string]secret.String{"x-api-key": "k3y"},
			BasicAuthUsername: "svc",
			BasicAuthPassword: "pa55",
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	record(t, m, 6)
	exps := rc.all()
	if v, _, ok := sumOf(exps, "svc.otlp.hits"); !ok || v != 6 {
		t.Fatalf("gRPC receiver got %v (%v)", v, ok)
	}
	h := exps[len(exps)-1].headers
	if h["authorization"] != basic("svc", "pa55") || h["x-api-key"] != "k3y" {
		t.Errorf("gRPC metadata = %v", h)
	}
}

// A receiver that hangs: the flush is abandoned at shutdown_timeout with a
// warning, and Close returns nil so the rest of stop proceeds. The export
// timeout is an hour, so only the shutdown bound can end the wait.
func TestShutdownBoundWithHangingReceiver(t *testing.T) {
	for _, kind := range []string{"otlp-http", "otlp-grpc"} {
		t.Run(kind, func(t *testing.T) {
			cleanEnv(t)
			var endpoint string
			if kind == "otlp-http" {
				release := make(chan struct{})
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					select {
					case <-r.Context().Done():
					case <-release:
					}
				}))
				t.Cleanup(srv.Close)
				t.Cleanup(func() { close(release) })
				endpoint = srv.URL
			} else {
				_, endpoint = newGRPCReceiver(t, true)
			}
			core, logs := observer.New(zap.WarnLevel)
			m, err := metrics.New(metrics.WithConfig(metrics.Config{
				Exporter: kind,
				Export: metrics.Export{
					Endpoint:        secret.URL(endpoint),
					ExportTimeout:   time.Hour,
					ShutdownTimeout: 200 * time.Millisecond,
				},
				ExportInterval: time.Hour,
			}), metrics.WithLogger(zap.New(core)))
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Open(ctx); err != nil {
				t.Fatal(err)
			}
			c, _ := m.Counter("svc.hang.hits")
			c.Add(ctx, 1)
			if err := m.Close(ctx); err != nil {
				t.Fatalf("an abandoned flush must not fail stop: %v", err)
			}
			entries := logs.FilterMessageSnippet("flush abandoned").All()
			if len(entries) != 1 {
				t.Fatalf("want one warning, got %v", logs.All())
			}
			f := entries[0].ContextMap()
			if f["shutdown_timeout"] != 200*time.Millisecond || f["component"] != "default" || f["exporter"] != kind {
				t.Errorf("warning fields = %v", f)
			}
			if m.OwnsGlobalState() {
				t.Error("the global provider is restored even when the flush is abandoned")
			}
		})
	}
}

// Regression: issue 14 item 11.
// A collector refusing the final export: Close logs a warning, without
// secrets, and returns nil, so a clean stop stays clean.
func TestShutdownErrorIsAWarningWithoutSecrets(t *testing.T) {
	cleanEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A hostile or careless collector echoing credentials back.
		http.Error(w, "denied for "+r.Header.Get("Authorization")+" "+r.Header.Get("X-Api-Key"), http.StatusBadRequest)
	}))
	t.Cleanup(srv.Close)
	core, logs := observer.New(zap.DebugLevel)
	m, err := metrics.New(metrics.WithConfig(metrics.Config{
		Export: metrics.Export{
			Endpoint:          secret.URL(srv.URL),
			BasicAuthUsername: "svc",
			BasicAuthPassword: secret.String("pa55word"),
			Headers:           secretHeaders(map[string]string{"x-api-key": "k3ysecret"}),
		},
		ExportInterval: time.Hour,
	}), metrics.WithLogger(zap.New(core)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Open(ctx); err != nil {
		t.Fatal(err)
	}
	c, _ := m.Counter("svc.refused")
	c.Add(ctx, 1)
	if err := m.Close(ctx); err != nil {
		t.Fatalf("Close = %v, want nil: a failed final flush is a warning", err)
	}
	entries := logs.FilterMessageSnippet("metrics flush failed").All()
	if len(entries) != 1 || entries[0].Level != zap.WarnLevel {
		t.Fatalf("want one warning, got %v", logs.All())
	}
	text := fmt.Sprint(entries[0].ContextMap())
	if !strings.Contains(text, "400") || !strings.Contains(text, "***") || entries[0].ContextMap()["exporter"] != "otlp-http" {
		t.Fatalf("warning fields = %s", text)
	}
	for _, s := range []string{"k3ysecret", "pa55word", base64.StdEncoding.EncodeToString([]byte("svc:pa55word"))} {
		if strings.Contains(text, s) {
			t.Fatalf("warning leaks %q: %s", s, text)
		}
	}
}
