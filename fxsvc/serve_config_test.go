package fxsvc_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
)

// Regression: issue 14 item 3.
// Every server setting is read from its variable; an invalid value fails
// the app's build with a *SettingError naming the variable (or option).
func TestServeSettingsRefuseInvalidValues(t *testing.T) {
	for _, tc := range []struct {
		name, variable, value string
		opt                   fxsvc.ServeOption
		setting               string
	}{
		{"read header timeout not a duration", "SVC_HTTP_READ_HEADER_TIMEOUT", "soon", nil, "SVC_HTTP_READ_HEADER_TIMEOUT"},
		{"read timeout zero", "SVC_HTTP_READ_TIMEOUT", "0", nil, "SVC_HTTP_READ_TIMEOUT"},
		{"write timeout negative", "SVC_HTTP_WRITE_TIMEOUT", "-5s", nil, "SVC_HTTP_WRITE_TIMEOUT"},
		{"idle timeout NaN", "SVC_HTTP_IDLE_TIMEOUT", "NaN", nil, "SVC_HTTP_IDLE_TIMEOUT"},
		{"max header bytes not a number", "SVC_HTTP_MAX_HEADER_BYTES", "64k", nil, "SVC_HTTP_MAX_HEADER_BYTES"},
		{"max header bytes zero", "SVC_HTTP_MAX_HEADER_BYTES", "0", nil, "SVC_HTTP_MAX_HEADER_BYTES"},
		{"drain timeout zero", "SVC_HTTP_DRAIN_TIMEOUT", "0s", nil, "SVC_HTTP_DRAIN_TIMEOUT"},
		{"max connections not a number", "SVC_HTTP_MAX_CONNECTIONS", "lots", nil, "SVC_HTTP_MAX_CONNECTIONS"},
		{"max connections zero", "SVC_HTTP_MAX_CONNECTIONS", "0", nil, "SVC_HTTP_MAX_CONNECTIONS"},
		{"option max connections zero", "", "", fxsvc.MaxConnections(0), "fxsvc.MaxConnections"},
		// Issue 37 item 13: above the descriptor limit (on unix, never
		// more than 2^31), a cap is never reached.
		{"max connections above the descriptor limit", "SVC_HTTP_MAX_CONNECTIONS", "1000000000000", nil, "SVC_HTTP_MAX_CONNECTIONS"},
		{"option max connections above the descriptor limit", "", "", fxsvc.MaxConnections(1 << 40), "fxsvc.MaxConnections"},
		{"option read timeout zero", "", "", fxsvc.ReadTimeout(0), "fxsvc.ReadTimeout"},
		{"option idle timeout negative", "", "", fxsvc.IdleTimeout(-time.Second), "fxsvc.IdleTimeout"},
		{"option drain timeout zero", "", "", fxsvc.DrainTimeout(0), "fxsvc.DrainTimeout"},
		{"option max header bytes negative", "", "", fxsvc.MaxHeaderBytes(-1), "fxsvc.MaxHeaderBytes"},
		// net.Listen reads "" as every interface on a random port.
		{"option addr empty", "", "", fxsvc.Addr(""), "fxsvc.Addr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.name, "descriptor limit") && runtime.GOOS == "windows" {
				t.Skip("no descriptor limit to read")
			}
			if tc.variable != "" {
				t.Setenv(tc.variable, tc.value)
			}
			opts := []fxsvc.ServeOption{fxsvc.Addr("127.0.0.1:0")}
			if tc.opt != nil {
				opts = append(opts, tc.opt)
			}
			app := fx.New(fx.NopLogger, fx.Supply(chi.NewRouter()), fxsvc.Serve(opts...))
			var se *fxsvc.SettingError
			if err := app.Err(); !errors.As(err, &se) || se.Setting != tc.setting || !strings.Contains(err.Error(), tc.setting) {
				t.Fatalf("err = %v, want a *SettingError naming %s", err, tc.setting)
			}
		})
	}
}

// Regression: issue 14 item 3.
// Valid values (a Go duration or a number of seconds) are taken, and an
// option wins over its variable.
func TestServeSettingsAreRead(t *testing.T) {
	t.Setenv("SVC_HTTP_DRAIN_TIMEOUT", "2.5")
	app, srv := startApp(t, fx.Supply(chi.NewRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	app.RequireStop()
	if got := fxsvc.ServerDrainTimeout(srv); got != 2500*time.Millisecond {
		t.Fatalf("drain %v from SVC_HTTP_DRAIN_TIMEOUT=2.5", got)
	}
	t.Setenv("SVC_HTTP_DRAIN_TIMEOUT", "3s")
	app, srv = startApp(t, fx.Supply(chi.NewRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"), fxsvc.DrainTimeout(time.Second)))
	app.RequireStop()
	if got := fxsvc.ServerDrainTimeout(srv); got != time.Second {
		t.Fatalf("drain %v: the option should win", got)
	}
}
