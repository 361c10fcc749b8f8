package tracing_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/svckit/svc/modules/tracing"
	"github.com/svckit/svc/modules/tracing/tracingtest"
)

// FromConfig's exporter reads no OTEL_* variable behind its back: the
// OpenTelemetry exporter would otherwise take its endpoint and headers
// from them.
func TestFromConfigExporterIgnoresOTELVariables(t *testing.T) {
	clearEnv(t)
	rcv := tracingtest.NewReceiver(t)
	elsewhere := tracingtest.NewReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", elsewhere.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-leak=1")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-leak=2")
	tr, err := tracing.FromConfig(tracing.Config{Export: tracing.Export{Endpoint: secretURL(rcv.URL)}})
	if err != nil {
		t.Fatal(err)
	}
	open(t, tr)
	startFrom("", "isolated")
	tracingtest.Flush(t, tr)
	if _, ok := rcv.Find("isolated"); !ok || len(elsewhere.Headers()) != 0 {
		t.Fatalf("configured receiver got %d exports, the OTEL one %d", len(rcv.Headers()), len(elsewhere.Headers()))
	}
	for k := range rcv.Headers()[0] {
		if strings.EqualFold(k, "x-leak") {
			t.Fatal("the exporter sent a header from OTEL_EXPORTER_OTLP_*HEADERS")
		}
	}
}

// The receiver kit refuses what is not an OTLP trace export.
func TestReceiverRefusesWhatIsNotAnExport(t *testing.T) {
	rcv := tracingtest.NewReceiver(t)
	base := strings.TrimSuffix(rcv.URL, "/v1/traces")
	for _, tc := range []struct {
		method, url, body string
		status            int
	}{
		{http.MethodGet, rcv.URL, "", http.StatusMethodNotAllowed},
		{http.MethodPost, base + "/v1/metrics", "", http.StatusNotFound},
		{http.MethodPost, rcv.URL, "\xff not protobuf", http.StatusBadRequest},
	} {
		req, _ := http.NewRequestWithContext(context.Background(), tc.method, tc.url, strings.NewReader(tc.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Fatalf("%s %s: %d, want %d", tc.method, tc.url, resp.StatusCode, tc.status)
		}
	}
	if len(rcv.Spans()) != 0 {
		t.Fatal("the receiver kept spans from a refused request")
	}
}
