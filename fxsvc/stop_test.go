package fxsvc_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/secret"
)

// refusingCollector refuses every OTLP export at once, with a status the
// exporter does not retry.
func refusingCollector(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		http.Error(w, "export refused", http.StatusBadRequest)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// stopsItself records a metric and asks the app to stop as soon as it has
// started, through fx.
func stopsItself() fx.Option { return stopsBy(func(sd fx.Shutdowner) error { return sd.Shutdown() }) }

// sigterms is stopsItself by a real SIGTERM to the process: Run listens
// for it before starting.
func sigterms() fx.Option {
	return stopsBy(func(fx.Shutdowner) error { return syscall.Kill(os.Getpid(), syscall.SIGTERM) })
}

func stopsBy(stop func(fx.Shutdowner) error) fx.Option {
	return fx.Invoke(func(lc fx.Lifecycle, m *metrics.Metrics, sd fx.Shutdowner) {
		lc.Append(fx.StartHook(func(ctx context.Context) error {
			c, err := m.Counter("svc.test.stops")
			if err != nil {
				return err
			}
			c.Add(ctx, 1)
			return stop(sd)
		}))
	})
}

func runStopping(t *testing.T, collector string, stop fx.Option) (int, string) {
	t.Helper()
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
	var out, errOut bytes.Buffer
	opts := []fx.Option{
		fx.Supply(zap.NewNop(), chi.NewRouter()),
		fxsvc.Metrics(metrics.WithConfig(metrics.Config{
			Exporter: "otlp-http",
			Export: metrics.Export{
				Endpoint: secret.URL(collector),
			},
			ExportInterval: time.Hour,
		})),
		fxsvc.Serve(),
		stop,
	}
	code := fxsvc.Run(nil, &out, &errOut, opts...)
	return code, errOut.String()
}

// Regression: issue 14 item 11.
// A clean stop whose final metrics flush the collector refuses exits 0.
func TestRunExitsZeroWhenTheFinalFlushFails(t *testing.T) {
	for name, stop := range map[string]fx.Option{"SIGTERM": sigterms(), "fx.Shutdowner": stopsItself()} {
		t.Run(name, func(t *testing.T) {
			collector, calls := refusingCollector(t)
			code, stderr := runStopping(t, collector.URL, stop)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			if calls.Load() == 0 {
				t.Fatal("the final flush never reached the collector")
			}
		})
	}
}

// Regression: issue 14 item 11.
// Stop parts that cannot fit the stop budget fail start-up, naming the
// variables, before anything starts.
func TestRunRefusesStopPartsLargerThanTheBudget(t *testing.T) {
	collector, calls := refusingCollector(t)
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"metrics flush of 30 s", map[string]string{"SVC_METRICS_SHUTDOWN_TIMEOUT": "30"},
			[]string{"SVC_SHUTDOWN_TIMEOUT", "SVC_METRICS_SHUTDOWN_TIMEOUT, 30s", "SVC_HTTP_DRAIN_TIMEOUT, 8s", "15s"}},
		{"drain of 15 s", map[string]string{"SVC_HTTP_DRAIN_TIMEOUT": "15s"},
			[]string{"SVC_SHUTDOWN_TIMEOUT", "SVC_HTTP_DRAIN_TIMEOUT, 15s"}},
		{"shutdown delay of 5 s beside the default drain and flush", map[string]string{"SVC_HTTP_SHUTDOWN_DELAY": "5s"},
			[]string{"SVC_SHUTDOWN_TIMEOUT", "SVC_HTTP_SHUTDOWN_DELAY, 5s", "SVC_HTTP_DRAIN_TIMEOUT, 8s"}},
		{"budget of 10 s", map[string]string{"SVC_SHUTDOWN_TIMEOUT": "10s"},
			[]string{"SVC_SHUTDOWN_TIMEOUT", "stop budget 10s"}},
		{"budget not a duration", map[string]string{"SVC_SHUTDOWN_TIMEOUT": "later"},
			[]string{"SVC_SHUTDOWN_TIMEOUT", "positive Go duration"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			// The metrics component reads its environment here, unlike in
			// runStopping.
			t.Setenv("SVC_METRICS_EXPORTER", "otlp-http")
			t.Setenv("SVC_METRICS_ENDPOINT", collector.URL)
			t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
			var out, errOut bytes.Buffer
			code := fxsvc.Run(nil, &out, &errOut, fx.Supply(zap.NewNop(), chi.NewRouter()), fxsvc.Metrics(), fxsvc.Serve(), stopsItself())
			if code != 1 {
				t.Fatalf("exit %d, stderr %q", code, errOut.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut.String(), w) {
					t.Fatalf("stderr %q does not name %q", errOut.String(), w)
				}
			}
		})
	}
	if calls.Load() != 0 {
		t.Fatal("an app refused for its stop budget started anyway")
	}
}

// Regression: issue 24 item 6.
// A stop budget the parts overrun was reported only once every other bad
// setting was fixed: it is reported with them, by run and by check alike,
// and check reports it alone too.
func TestStopBudgetIsReportedWithTheOtherBadSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{"run, with a bad read timeout", nil, map[string]string{"SVC_HTTP_READ_TIMEOUT": "soon"},
			[]string{"2 invalid settings", "SVC_HTTP_READ_TIMEOUT", "stop budget 6s", "SVC_METRICS_SHUTDOWN_TIMEOUT, 5s", "SVC_HTTP_DRAIN_TIMEOUT, 8s"}},
		{"check, with a bad read timeout", []string{"check"}, map[string]string{"SVC_HTTP_READ_TIMEOUT": "soon"},
			[]string{"2 invalid settings", "SVC_HTTP_READ_TIMEOUT", "stop budget 6s"}},
		{"run, with a bad drain", nil, map[string]string{"SVC_HTTP_DRAIN_TIMEOUT": "never", "SVC_METRICS_SHUTDOWN_TIMEOUT": "7s"},
			[]string{"2 invalid settings", "SVC_HTTP_DRAIN_TIMEOUT: want", "SVC_METRICS_SHUTDOWN_TIMEOUT, 7s"}},
		{"run, with a bad metrics setting", nil, map[string]string{"SVC_METRICS_EXPORTER": "pigeon", "SVC_HTTP_SHUTDOWN_DELAY": "2s"},
			[]string{"2 invalid settings", "SVC_METRICS_EXPORTER", "SVC_HTTP_SHUTDOWN_DELAY, 2s"}},
		{"check, alone", []string{"check"}, nil,
			[]string{"SVC_SHUTDOWN_TIMEOUT", "stop budget 6s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SVC_SHUTDOWN_TIMEOUT", "6s")
			// An active exporter holds its flush in the budget; nothing
			// starts, so none is ever sent.
			t.Setenv("SVC_METRICS_EXPORTER", "otlp-http")
			t.Setenv("SVC_METRICS_ENDPOINT", "http://127.0.0.1:1")
			t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var out, errOut bytes.Buffer
			code := fxsvc.Run(tc.args, &out, &errOut, fx.Supply(zap.NewNop(), chi.NewRouter()),
				fxsvc.Metrics(), fxsvc.Tracing(), fxsvc.Serve(), stopsItself())
			if code != 1 {
				t.Fatalf("exit %d, stderr %q", code, errOut.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("stderr does not say %q:\n%s", w, errOut.String())
				}
			}
		})
	}
	// A budget that holds the parts is no error for check either.
	t.Setenv("SVC_SHUTDOWN_TIMEOUT", "20s")
	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Supply(zap.NewNop(), chi.NewRouter()),
		fxsvc.Metrics(), fxsvc.Tracing(), fxsvc.Serve()); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
}

// The defaults fit the default budget, and a larger budget admits larger
// parts.
func TestRunAcceptsPartsWithinTheBudget(t *testing.T) {
	collector, _ := refusingCollector(t)
	t.Setenv("SVC_SHUTDOWN_TIMEOUT", "40")
	t.Setenv("SVC_HTTP_DRAIN_TIMEOUT", "20s")
	t.Setenv("SVC_HTTP_SHUTDOWN_DELAY", "0.1") // counted, and fits
	code, stderr := runStopping(t, collector.URL, stopsItself())
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// Regression: issue 14 item 11.
// A stop hook outliving the budget: the error names the budget's variable.
func TestRunNamesTheBudgetWhenItRunsOut(t *testing.T) {
	t.Setenv("SVC_SHUTDOWN_TIMEOUT", "0.3")
	t.Setenv("SVC_HTTP_DRAIN_TIMEOUT", "0.1")
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
	var out, errOut bytes.Buffer
	code := fxsvc.Run(nil, &out, &errOut, fx.Supply(chi.NewRouter()), fxsvc.Serve(),
		fx.Invoke(func(lc fx.Lifecycle, sd fx.Shutdowner) {
			lc.Append(fx.Hook{
				OnStart: func(context.Context) error { return sd.Shutdown() },
				OnStop: func(ctx context.Context) error {
					<-ctx.Done() // a component that never finishes closing
					return ctx.Err()
				},
			})
		}))
	if code != 1 || !strings.Contains(errOut.String(), "SVC_SHUTDOWN_TIMEOUT") || !strings.Contains(errOut.String(), "300ms") {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
}
