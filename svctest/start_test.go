package svctest_test

import (
	"net/http"
	"testing"

	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/svctest"
)

// The app's own address (here a privileged port) never decides where a test
// listens: two tests can run side by side.
func TestStartListensOnAFreeLoopbackPort(t *testing.T) {
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:1")
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	a := svctest.Start(t, fx.Provide(func() http.Handler { return h }), fxsvc.Serve(fxsvc.Addr("127.0.0.1:2")))
	b := svctest.Start(t, fx.Provide(func() http.Handler { return h }), fxsvc.Serve())
	if a.URL == b.URL {
		t.Fatalf("both apps at %s", a.URL)
	}
	for _, app := range []*svctest.App{a, b} {
		if r := app.Get(t, "/", ""); r.Status != 200 || r.Body != "ok" {
			t.Fatalf("%s: %d %q", app.URL, r.Status, r.Body)
		}
	}
}
