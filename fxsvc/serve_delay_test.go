package fxsvc_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/svckit/svc/fxsvc"
)

// On stop, /readyz fails first; requests are served normally for the
// whole shutdown delay; only then does the drain begin. The delay's timer
// is the test's, so nothing here depends on timing.
func TestShutdownDelayFailsReadinessBeforeTheDrain(t *testing.T) {
	var srv *fxsvc.Server
	var drainStarted atomic.Bool
	router := chi.NewRouter()
	router.Get("/ok", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-fxsvc.ShuttingDown(r.Context()):
			drainStarted.Store(true)
		default:
		}
		_, _ = io.WriteString(w, "fine")
	})
	app := fxtest.New(t, fxsvc.Errors(), fxsvc.Health(), fx.Supply(router),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"), fxsvc.ShutdownDelay(time.Hour)), fx.Populate(&srv))
	app.RequireStart()
	base := "http://" + srv.Addr()
	if fxsvc.ServerShutdownDelay(srv) != time.Hour {
		t.Fatalf("ShutdownDelay() = %v", fxsvc.ServerShutdownDelay(srv))
	}
	if a := send(t, "GET", base+"/readyz"); a.status != 200 {
		t.Fatalf("/readyz before stop: %d", a.status)
	}

	inDelay := make(chan time.Duration, 1)
	endDelay := make(chan struct{})
	var release sync.Once
	// A failing test still ends the delay, so the stop goroutine returns.
	defer release.Do(func() { close(endDelay) })
	fxsvc.SetShutdownSleep(srv, func(ctx context.Context, d time.Duration) {
		inDelay <- d
		<-endDelay
	})
	stopped := make(chan error, 1)
	go func() { stopped <- app.Stop(context.Background()) }()
	if d := <-inDelay; d != time.Hour {
		t.Fatalf("the delay waited for %v", d)
	}

	// During the delay: not ready, naming the shutdown; everything else
	// served as before, and the drain has not begun.
	if got := notReady(t, send(t, "GET", base+"/readyz")); len(got) != 1 || got[0] != "shutdown" {
		t.Fatalf("checks %v, want [shutdown]", got)
	}
	if a := send(t, "GET", base+"/livez"); a.status != 200 {
		t.Fatalf("/livez during the delay: %d", a.status)
	}
	for range 3 {
		if a := send(t, "GET", base+"/ok"); a.status != 200 || a.body != "fine" {
			t.Fatalf("/ok during the delay: %d %s", a.status, a.body)
		}
	}
	if drainStarted.Load() {
		t.Fatal("the drain began during the shutdown delay")
	}
	select {
	case <-fxsvc.Stopping(srv):
		t.Fatal("ShuttingDown closed during the shutdown delay")
	case err := <-stopped:
		t.Fatalf("stop returned during the delay: %v", err)
	default:
	}

	release.Do(func() { close(endDelay) })
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	select {
	case <-fxsvc.Stopping(srv):
	default:
		t.Fatal("the drain never began")
	}
	if _, err := http.Get(base + "/ok"); err == nil {
		t.Fatal("the server still accepts connections after stop")
	}
}

// Without a delay, stop drains at once (no sleep is called).
func TestNoShutdownDelayByDefault(t *testing.T) {
	var srv *fxsvc.Server
	app := fxtest.New(t, fx.Supply(chi.NewRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")), fx.Populate(&srv))
	app.RequireStart()
	fxsvc.SetShutdownSleep(srv, func(context.Context, time.Duration) { t.Error("slept without a delay") })
	app.RequireStop()
	if fxsvc.ServerShutdownDelay(srv) != 0 {
		t.Fatalf("default delay %v", fxsvc.ServerShutdownDelay(srv))
	}
}

func TestShutdownDelaySettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  string
		opt  []fxsvc.ServeOption
		want time.Duration
		err  string
	}{
		{name: "zero", env: "0", want: 0},
		{name: "duration", env: "5s", want: 5 * time.Second},
		{name: "seconds", env: "1.5", want: 1500 * time.Millisecond},
		{name: "option wins", env: "5s", opt: []fxsvc.ServeOption{fxsvc.ShutdownDelay(2 * time.Second)}, want: 2 * time.Second},
		{name: "negative", env: "-1s", err: "SVC_HTTP_SHUTDOWN_DELAY"},
		{name: "zero duration", env: "0s", err: "SVC_HTTP_SHUTDOWN_DELAY"},
		{name: "words", env: "soon", err: "SVC_HTTP_SHUTDOWN_DELAY"},
		{name: "negative option", opt: []fxsvc.ServeOption{fxsvc.ShutdownDelay(-time.Second)}, err: "fxsvc.ShutdownDelay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("SVC_HTTP_SHUTDOWN_DELAY", tc.env)
			}
			var srv *fxsvc.Server
			app := fx.New(fx.NopLogger, fx.Supply(chi.NewRouter()), fxsvc.Serve(tc.opt...), fx.Populate(&srv))
			err := app.Err()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error naming %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fxsvc.ServerShutdownDelay(srv) != tc.want {
				t.Fatalf("delay %v, want %v", fxsvc.ServerShutdownDelay(srv), tc.want)
			}
		})
	}
}
