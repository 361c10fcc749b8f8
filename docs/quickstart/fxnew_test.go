package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn/authntest"
)

// The page's second form, fx.New(service(…)): the same app, started and
// stopped by fx itself, logs the start and stop lines and serves.
func TestTheFxNewForm(t *testing.T) {
	t.Setenv("SVC_REDIS_URL", "")
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
	iss := authntest.NewIssuer(t)
	core, logs := observer.New(zap.DebugLevel)
	var srv *fxsvc.Server
	app := fx.New(service(iss.Discover()), fx.Supply(zap.New(core)), fx.Populate(&srv))
	if err := app.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := app.Stop(t.Context()); err != nil {
			t.Error(err)
		}
		if n := logs.FilterMessage("svc: stopped").Len(); n != 1 {
			t.Errorf("%d stop lines, want 1", n)
		}
	}()
	if n := logs.FilterMessage("svc: started").Len(); n != 1 {
		t.Fatalf("%d start lines, want 1", n)
	}
	resp, err := http.Get("http://" + srv.Addr() + "/hello")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "hello") {
		t.Fatalf("GET /hello: %d %s", resp.StatusCode, body)
	}
}
