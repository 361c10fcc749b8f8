package metrics_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/secret"
)

type handlerFunc func(error)

func (f handlerFunc) Handle(err error) { f(err) }

// captureStdLog diverts Go's standard logger for the test.
func captureStdLog(t *testing.T) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	prev := log.Writer()
	log.SetOutput(&buf)
	t.Cleanup(func() { log.SetOutput(prev) })
	return &buf
}

// Regression: issue 14 item 13.
// Periodic export errors, which the SDK hands to otel.Handle, reach the
// app's zap logger with the config's secrets redacted, and not Go's
// standard logger; the handler found before Open is back after Close.
func TestOTelErrorsReachTheZapLoggerRedacted(t *testing.T) {
	cleanEnv(t)
	std := captureStdLog(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "denied for "+r.Header.Get("Authorization")+" "+r.Header.Get("X-Api-Key"), http.StatusBadRequest)
	}))
	t.Cleanup(srv.Close)
	var before []error
	mine := handlerFunc(func(err error) { before = append(before, err) })
	otel.SetErrorHandler(mine)
	t.Cleanup(func() { otel.SetErrorHandler(handlerFunc(func(error) {})) })

	core, logs := observer.New(zap.DebugLevel)
	m, err := metrics.New(metrics.WithConfig(metrics.Config{
		Export: metrics.Export{
			Endpoint:          secret.URL(srv.URL),
			BasicAuthUsername: "svc",
			BasicAuthPassword: secret.String("pa55word"),
			Headers:           secretHeaders(map[string]string{"x-api-key": "k3ysecret"}),
		},
		ExportInterval: 10 * time.Millisecond,
	}), metrics.WithLogger(zap.New(core)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Open(ctx); err != nil {
		t.Fatal(err)
	}
	c, _ := m.Counter("svc.refused.periodic")
	c.Add(ctx, 1)
	deadline := time.Now().Add(20 * time.Second)
	for logs.FilterMessage("opentelemetry error").Len() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no export error reached the zap logger; std logger got %q", std.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = m.Close(ctx)
	entry := logs.FilterMessage("opentelemetry error").All()[0]
	text := fmt.Sprint(entry.ContextMap())
	if entry.Level != zap.ErrorLevel || !strings.Contains(text, "***") || !strings.Contains(text, "400") ||
		entry.ContextMap()["failure"] != "export status 400" {
		t.Fatalf("entry %v %s", entry.Level, text)
	}
	for _, s := range []string{"k3ysecret", "pa55word", base64.StdEncoding.EncodeToString([]byte("svc:pa55word"))} {
		if strings.Contains(text, s) {
			t.Fatalf("logged error leaks %q: %s", s, text)
		}
	}
	if std.Len() != 0 {
		t.Fatalf("the standard logger got %q", std.String())
	}
	if len(before) != 0 {
		t.Fatalf("the handler set before Open got %v while the component was open", before)
	}
	otel.Handle(fmt.Errorf("after close"))
	if len(before) != 1 {
		t.Fatalf("the handler set before Open is not restored on Close: %v", before)
	}
}

// Regression: issue 14 item 13.
// OpenTelemetry's own warnings (its logr logger) reach the zap logger too.
func TestOTelWarningsReachTheZapLogger(t *testing.T) {
	cleanEnv(t)
	std := captureStdLog(t)
	core, logs := observer.New(zap.DebugLevel)
	m, err := metrics.New(metrics.WithConfig(metrics.Config{Exporter: "prometheus"}), metrics.WithLogger(zap.New(core)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	mt, _ := m.Meter("svc.test")
	cb := metric.WithInt64Callback(func(context.Context, metric.Int64Observer) error { return nil })
	// The second creation with a callback makes the SDK warn.
	_, _ = mt.Int64ObservableGauge("svc.repeated", cb)
	_, _ = mt.Int64ObservableGauge("svc.repeated", cb)
	entries := logs.FilterMessageSnippet("Repeated observable instrument").All()
	if len(entries) != 1 || entries[0].Level != zap.WarnLevel || !strings.Contains(fmt.Sprint(entries[0].ContextMap()), "svc.repeated") {
		t.Fatalf("want one warning naming the instrument, got %v (std logger: %q)", logs.All(), std.String())
	}
	if std.Len() != 0 {
		t.Fatalf("the standard logger got %q", std.String())
	}
}

// With two components open, OpenTelemetry's errors go to the one opened
// last; when it closes, to the other; when both are closed, to the handler
// found before.
func TestOTelErrorsFollowTheLatestOpenComponent(t *testing.T) {
	cleanEnv(t)
	var before []error
	otel.SetErrorHandler(handlerFunc(func(err error) { before = append(before, err) }))
	t.Cleanup(func() { otel.SetErrorHandler(handlerFunc(func(error) {})) })
	open := func(name string) (*metrics.Metrics, *observer.ObservedLogs) {
		core, logs := observer.New(zap.DebugLevel)
		m, err := metrics.New(metrics.WithName(name),
			metrics.WithConfig(metrics.Config{Exporter: "prometheus"}), metrics.WithLogger(zap.New(core)))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Open(ctx); err != nil {
			t.Fatal(err)
		}
		return m, logs
	}
	a, aLogs := open("a")
	b, bLogs := open("b")
	otel.Handle(fmt.Errorf("one"))
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
	otel.Handle(fmt.Errorf("two"))
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	otel.Handle(fmt.Errorf("three"))
	got := func(logs *observer.ObservedLogs) (msgs []string) {
		for _, e := range logs.FilterMessage("opentelemetry error").All() {
			msgs = append(msgs, fmt.Sprint(e.ContextMap()["error"]))
		}
		return msgs
	}
	if fmt.Sprint(got(bLogs)) != "[one]" || fmt.Sprint(got(aLogs)) != "[two]" || fmt.Sprint(before) != "[three]" {
		t.Fatalf("b got %v, a got %v, the handler before got %v", got(bLogs), got(aLogs), before)
	}
}
