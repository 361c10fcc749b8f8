//go:build unix

package fxsvc_test

import (
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"golang.org/x/sys/unix"

	"github.com/svckit/svc/fxsvc"
)

// Regression: issue 25 item 3.
// Without SVC_HTTP_MAX_CONNECTIONS the cap follows the descriptor limit:
// lowered to 2048, the server takes 1844 connections, the rest of the
// descriptors left to the process's other files.
func TestMaxConnectionsDefaultsToAShareOfTheDescriptorLimit(t *testing.T) {
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
		t.Skipf("no descriptor limit here: %v", err)
	}
	if old.Max < 2048 {
		t.Skipf("hard descriptor limit %d below the test's 2048", old.Max)
	}
	lowered := old
	lowered.Cur = 2048
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lowered); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Setrlimit(unix.RLIMIT_NOFILE, &old) })
	app, srv := startApp(t, fx.Supply(chi.NewRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	app.RequireStop()
	if got := fxsvc.ServerMaxConnections(srv); got != 1844 || got != fxsvc.DefaultMaxConnections(2048) {
		t.Fatalf("cap %d under a descriptor limit of 2048, want 1844", got)
	}
}
