package metrics_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/svckit/svc/modules/metrics"
)

const freshProcessEnv = "SVC_METRICS_TEST_FRESH_PROCESS"

// runFresh reruns test name in a new process, where OpenTelemetry's
// one-shot global delegate is still unwired, and fails if it fails.
func runFresh(t *testing.T, name string) bool {
	t.Helper()
	if os.Getenv(freshProcessEnv) == "1" {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), freshProcessEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("fresh process run failed: %v\n%s", err, out)
	}
	return false
}

// pitfalls.md, otel-go#4291/#5827: instruments taken from the global before
// the first SetMeterProvider stay bound to what it installed. Two apps
// started one after the other in one process must each get everything:
// instruments made before any app, between the apps, and during the first.
func TestTwoAppsOneProcessGlobalInstruments(t *testing.T) {
	if !runFresh(t, "TestTwoAppsOneProcessGlobalInstruments") {
		return
	}
	cleanEnv(t)
	original := otel.GetMeterProvider()

	// Made at "package init", before any component.
	early, err := otel.Meter("lib.early").Int64Counter("svc.early.hits")
	if err != nil {
		t.Fatal(err)
	}
	var gaugeValue int64 = 7
	_, err = otel.Meter("lib.early").Int64ObservableGauge("svc.early.level",
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			o.Observe(gaugeValue)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	earlyMeter := otel.Meter("lib.early.cb")
	cbGauge, err := earlyMeter.Float64ObservableGauge("svc.early.ratio")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := earlyMeter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveFloat64(cbGauge, 0.5)
		return nil
	}, cbGauge); err != nil {
		t.Fatal(err)
	}
	measured := metrics.Wrap(func() {}, metrics.Name("svc.early.op"))

	// App 1.
	app1 := openProm(t)
	early.Add(ctx, 1)
	measured()
	during, err := otel.Meter("lib.during").Int64Counter("svc.during.hits")
	if err != nil {
		t.Fatal(err)
	}
	during.Add(ctx, 10)
	f1 := scrape(t, app1)
	for name, want := range map[string]float64{
		"svc_early_hits_total": 1, "svc_early_level": 7, "svc_early_ratio": 0.5,
		"svc_early_op_calls_total": 1, "svc_during_hits_total": 10,
	} {
		if v, ok := sample(f1, name, nil); !ok || v != want {
			t.Errorf("app1 %s = %v (%v), want %v", name, v, ok, want)
		}
	}
	if err := app1.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if otel.GetMeterProvider() != original {
		t.Fatal("app1 close must restore the original provider")
	}

	// Between the apps: recorded nowhere, made from the restored global.
	early.Add(ctx, 100)
	between, err := otel.Meter("lib.between").Int64Counter("svc.between.hits")
	if err != nil {
		t.Fatal(err)
	}

	// App 2.
	app2 := openProm(t)
	early.Add(ctx, 5)
	during.Add(ctx, 20)
	between.Add(ctx, 2)
	measured()
	measured()
	gaugeValue = 9
	f2 := scrape(t, app2)
	for name, want := range map[string]float64{
		"svc_early_hits_total": 5, "svc_early_level": 9, "svc_early_ratio": 0.5,
		"svc_early_op_calls_total": 2, "svc_during_hits_total": 20, "svc_between_hits_total": 2,
	} {
		if v, ok := sample(f2, name, nil); !ok || v != want {
			t.Errorf("app2 %s = %v (%v), want %v", name, v, ok, want)
		}
	}
}

// A library that saved the global provider while a component was open (the
// bridge) and puts it back later must not leave the next component's Close
// installing a nil provider.
func TestCloseAfterBridgeRestoredByOthersLeavesUsableGlobal(t *testing.T) {
	cleanEnv(t)
	orig := otel.GetMeterProvider()
	t.Cleanup(func() { otel.SetMeterProvider(orig) })
	ctx := context.Background()
	open := func() *metrics.Metrics {
		m, err := metrics.New(metrics.WithConfig(metrics.Config{Exporter: "prometheus"}))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Open(ctx); err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := open()
	saved := otel.GetMeterProvider() // the bridge
	otel.SetMeterProvider(noop.NewMeterProvider())
	_ = a.Close(ctx)
	otel.SetMeterProvider(saved) // the library restores what it found
	b := open()
	_ = b.Close(ctx)
	if otel.GetMeterProvider() == nil {
		t.Fatal("Close left the global meter provider nil")
	}
	otel.Meter("x") // must not panic
}
