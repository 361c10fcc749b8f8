package fxsvc_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
)

// Issue 37 item 15: the form the kit was specified with,
// fx.New(fxsvc.…).Run(), gets what fxsvc.Main gives: fx's own events on
// the app's logger at debug (not 108 [Fx] lines on stderr), the start and
// stop lines.
func TestAnFxNewAppLogsLikeMain(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	app := fx.New(
		fx.Supply(zap.New(core)),
		fx.Supply(chi.NewRouter()),
		fxsvc.Errors(),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")),
	)
	if err := app.Err(); err != nil {
		t.Fatal(err)
	}
	if err := app.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	started := logs.FilterMessage("svc: started").All()
	if len(started) != 1 || started[0].Level != zapcore.InfoLevel {
		t.Fatalf("start lines %v, want one at info", started)
	}
	fields := started[0].ContextMap()
	if addr, _ := fields["server.address"].(string); !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("server.address %v", fields["server.address"])
	}
	if err := app.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	stopped := logs.FilterMessage("svc: stopped").All()
	if len(stopped) != 1 || stopped[0].ContextMap()["outcome"] != "clean" {
		t.Fatalf("stop lines %v, want one, clean", stopped)
	}
	// fx's own events: on the app's logger, at debug, never above but for
	// errors.
	var fxEvents int
	for _, e := range logs.All() {
		if e.Message == "provided" || e.Message == "invoked" || e.Message == "started" {
			fxEvents++
			if e.Level != zapcore.DebugLevel {
				t.Errorf("fx event %q at %s, want debug", e.Message, e.Level)
			}
		}
	}
	if fxEvents == 0 {
		t.Fatal("fx's events did not reach the app's logger")
	}
}

// Issue 37 item 15: an fx.New app reports every bad setting of every
// component at once, before the first constructor fails (fx alone stops
// at the first).
func TestAnFxNewAppReportsEveryBadSettingAtOnce(t *testing.T) {
	t.Setenv("SVC_HTTP_READ_TIMEOUT", "soon")
	t.Setenv("SVC_METRICS_EXPORTER", "carrier-pigeon")
	t.Setenv("SVC_LOG_LEVEL", "loud")
	core, _ := observer.New(zapcore.DebugLevel)
	app := fx.New(
		fx.Supply(zap.New(core)),
		fx.Supply(chi.NewRouter()),
		fxsvc.Metrics(),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")),
	)
	err := app.Err()
	if err == nil {
		t.Fatal("built with three bad settings")
	}
	for _, v := range []string{"SVC_HTTP_READ_TIMEOUT", "SVC_METRICS_EXPORTER", "SVC_LOG_LEVEL"} {
		if !strings.Contains(err.Error(), v) {
			t.Errorf("the error does not name %s: %v", v, err)
		}
	}
	var se *fxsvc.SettingError
	if !errors.As(err, &se) {
		t.Errorf("no *SettingError in %v", err)
	}
}
