package metrics

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newFakeClock() *fakeClock               { return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

// refused is the OTLP HTTP exporter's error for a status it does not retry.
func refused(status int) error {
	return fmt.Errorf("failed to send metrics to http://collector/v1/metrics: %d %s (body: no)", status, "Bad Request")
}

// routedTo makes m the component OpenTelemetry's errors go to.
func routedTo(t *testing.T, m *Metrics) {
	t.Helper()
	prev := logOwner.Swap(m)
	t.Cleanup(func() { logOwner.Store(prev) })
}

func limitedComponent(t *testing.T) (*Metrics, *observer.ObservedLogs, *fakeClock) {
	t.Helper()
	core, logs := observer.New(zap.DebugLevel)
	m, err := New(WithConfig(Config{Exporter: "none"}), WithLogger(zap.New(core)))
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	m.otelErrors.now = clock.now
	return m, logs, clock
}

// A collector that is down fails every export: one line per kind a
// minute, the next carrying how many were held back; another kind has its
// own window.
func TestOTelErrorsAreWrittenOncePerKindAMinute(t *testing.T) {
	m, logs, clock := limitedComponent(t)
	routedTo(t, m)
	theRouter.Handle(refused(400))
	clock.advance(time.Second)
	theRouter.Handle(refused(400))
	theRouter.Handle(refused(400))
	theRouter.Handle(context.DeadlineExceeded)
	clock.advance(59 * time.Second) // a minute after the first
	theRouter.Handle(refused(400))

	entries := logs.FilterMessage("opentelemetry error").All()
	if len(entries) != 3 {
		t.Fatalf("%d lines, want 3: %v", len(entries), entries)
	}
	want := []map[string]any{
		{"failure": "export status 400"},
		{"failure": "export timeout"},
		{"failure": "export status 400", "suppressed": int64(2)},
	}
	for i, e := range entries {
		ctx := e.ContextMap()
		if e.Level != zap.ErrorLevel || ctx["error"] == nil {
			t.Errorf("line %d: %v %v", i, e.Level, ctx)
		}
		for k, v := range want[i] {
			if ctx[k] != v {
				t.Errorf("line %d: %s = %v, want %v", i, k, ctx[k], v)
			}
		}
		if _, ok := ctx["suppressed"]; ok && want[i]["suppressed"] == nil {
			t.Errorf("line %d: suppressed %v with nothing held back", i, ctx["suppressed"])
		}
	}
}

// OpenTelemetry's own error logs (logr) share the limit, by message.
func TestOTelErrorLogsAreRateLimited(t *testing.T) {
	m, logs, clock := limitedComponent(t)
	routedTo(t, m)
	sink := routedSink{}
	for range 5 {
		sink.Error(errors.New("unknown observer"), "failed to record")
	}
	clock.advance(otelErrorWindow)
	sink.Error(errors.New("unknown observer"), "failed to record")
	entries := logs.FilterMessage("opentelemetry: failed to record").All()
	if len(entries) != 2 || entries[1].ContextMap()["suppressed"] != int64(4) {
		t.Fatalf("%v", entries)
	}
}

// OpenTelemetry's warnings share the limit too: the trace SDK warns once
// per span that drops attributes, so a busy service would write one line a
// request.
func TestOTelWarningsAreRateLimited(t *testing.T) {
	m, logs, clock := limitedComponent(t)
	routedTo(t, m)
	sink := routedSink{}
	for range 5 {
		sink.Info(1, "limit reached: dropping trace Span attributes")
	}
	clock.advance(otelErrorWindow)
	sink.Info(1, "limit reached: dropping trace Span attributes")
	entries := logs.FilterMessage("opentelemetry: limit reached: dropping trace Span attributes").All()
	if len(entries) != 2 || entries[0].Level != zap.WarnLevel || entries[1].ContextMap()["suppressed"] != int64(4) {
		t.Fatalf("%v", entries)
	}
}

func TestExportFailureKinds(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{refused(400), "export status 400"},
		{refused(503), "export status 503"},
		{fmt.Errorf("export: %w", context.DeadlineExceeded), "export timeout"},
		{&url.Error{Op: "Post", URL: "http://collector", Err: errors.New("connection refused")}, "export request failed"},
		{errors.New("something else"), "other"},
	} {
		if got := exportFailure(tc.err); got != tc.want {
			t.Errorf("exportFailure(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
