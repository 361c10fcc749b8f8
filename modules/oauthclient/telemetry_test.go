package oauthclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/oauthclient"
)

// installTelemetry swaps in SDK providers for the test and restores the
// previous ones after it.
func installTelemetry(t *testing.T) (*sdkmetric.ManualReader, *tracetest.SpanRecorder) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prevM, prevT := otel.GetMeterProvider(), otel.GetTracerProvider()
	otel.SetMeterProvider(mp)
	otel.SetTracerProvider(tp)
	t.Cleanup(func() {
		otel.SetMeterProvider(prevM)
		otel.SetTracerProvider(prevT)
		mp.Shutdown(context.Background())
		tp.Shutdown(context.Background())
	})
	return reader, rec
}

type point struct {
	attrs map[string]string
	value int64
}

func fetchPoints(t *testing.T, reader *sdkmetric.ManualReader) (fetches []point, durations int) {
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != "github.com/svckit/svc/modules/oauthclient" {
			continue
		}
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				if m.Name == "svc.oauthclient.fetches" {
					for _, dp := range d.DataPoints {
						attrs := map[string]string{}
						for _, kv := range dp.Attributes.ToSlice() {
							attrs[string(kv.Key)] = kv.Value.String()
						}
						fetches = append(fetches, point{attrs, dp.Value})
					}
				}
			case metricdata.Histogram[float64]:
				if m.Name == "svc.oauthclient.fetch.duration" {
					for _, dp := range d.DataPoints {
						durations += int(dp.Count)
					}
				}
			}
		}
	}
	return fetches, durations
}

func TestTelemetryIsPerFetchNeverPerRequest(t *testing.T) {
	reader, spans := installTelemetry(t)
	s := newTokenServer(t)
	clk := newClock()
	core, logs := observer.New(zap.WarnLevel)
	c := newClient(t, s, clk, oauthclient.Logger(zap.New(core)))
	p := newCC(t, c, "billing")

	parentCtx, parent := otel.Tracer("test").Start(context.Background(), "inbound request")
	if _, err := p.Token(parentCtx); err != nil {
		t.Fatal(err)
	}
	parent.End()
	for i := 0; i < 100; i++ {
		mustToken(t, p)
	}
	s.then(answer{status: 503, body: "down"})
	clk.Advance(time.Hour)
	p.Token(context.Background())

	fetches, durations := fetchPoints(t, reader)
	if len(fetches) != 2 || durations != 2 {
		t.Fatalf("fetch points %v, %d durations: want one success and one failure", fetches, durations)
	}
	byOutcome := map[string]point{}
	for _, f := range fetches {
		if f.value != 1 {
			t.Fatalf("point %v counts %d", f.attrs, f.value)
		}
		byOutcome[f.attrs["svc.outcome"]] = f
	}
	ok, bad := byOutcome["success"], byOutcome["failure"]
	if ok.attrs["svc.oauthclient.pattern"] != "billing" || ok.attrs["svc.oauthclient.grant"] != "client_credentials" ||
		ok.attrs["svc.oauthclient.trigger"] != "first" || ok.attrs["error.type"] != "" {
		t.Fatalf("success attributes %v", ok.attrs)
	}
	if bad.attrs["error.type"] != "server_error" || bad.attrs["svc.oauthclient.trigger"] != "expired" {
		t.Fatalf("failure attributes %v", bad.attrs)
	}

	ended := spans.Ended()
	var fetchSpans []sdktrace.ReadOnlySpan
	for _, sp := range ended {
		if sp.Name() == "svc.oauthclient.fetch" {
			fetchSpans = append(fetchSpans, sp)
		}
	}
	if len(fetchSpans) != 2 {
		t.Fatalf("fetch spans %d, want 2", len(fetchSpans))
	}
	// The request waited for this token (issue 24 item 4): the fetch is
	// part of it, a child of its span. (A child may end after its parent:
	// a cancelled request does not cut the fetch short.)
	first := fetchSpans[0]
	if first.Parent().SpanID() != parent.SpanContext().SpanID() || first.Parent().TraceID() != parent.SpanContext().TraceID() {
		t.Fatal("the fetch span is not a child of the request that waited for it")
	}
	if len(first.Links()) != 0 {
		t.Fatal("the fetch span links to its own parent")
	}

	if logs.Len() != 1 || logs.All()[0].ContextMap()["error.type"] != "server_error" {
		t.Fatalf("logs %v", logs.All())
	}

	// Nothing recorded holds a token or a secret.
	var dump bytes.Buffer
	for _, sp := range fetchSpans {
		fmt.Fprint(&dump, sp.Attributes(), sp.Events(), sp.Status())
	}
	fmt.Fprint(&dump, fetches)
	b, _ := json.Marshal(logs.All())
	dump.Write(b)
	for _, secret := range []string{"tok-1", "s3cret-value", "svc-client"} {
		if strings.Contains(dump.String(), secret) {
			t.Fatalf("telemetry holds %q: %s", secret, dump.String())
		}
	}
}

func TestRetryIsASpanEvent(t *testing.T) {
	_, spans := installTelemetry(t)
	s := newTokenServer(t)
	s.then(answer{hangup: true})
	mustToken(t, newCC(t, newClient(t, s, newClock()), "api"))
	for _, sp := range spans.Ended() {
		if sp.Name() == "svc.oauthclient.fetch" {
			if ev := sp.Events(); len(ev) != 1 || ev[0].Name != "svc.oauthclient.retry" {
				t.Fatalf("events %v", ev)
			}
			return
		}
	}
	t.Fatal("no fetch span")
}
