// Package svctest starts a whole svc app inside a test: the app's own fx
// options, served on a free loopback port, ready (its verifier holds keys)
// before the test's first request, and stopped at the test's cleanup.
//
//	iss := authntest.NewIssuer(t)
//	app := svctest.Start(t, fxsvc.Errors(), fxsvc.Authn(iss.Discover()), fx.Provide(newRouter), fxsvc.Serve())
//	resp := app.Request("GET", "/admin").Token(iss.Token(authntest.Scopes("admin"))).Send(t)
//
// It is for tests only and is linked into no binary that does not import it.
package svctest

import (
	"net/http"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/kitlog"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
)

// App is a started app.
type App struct {
	// URL is where the app serves, http://127.0.0.1:PORT.
	URL string
	// Client is an *http.Client for it, with a 10 s timeout.
	Client *http.Client
	// Server is the app's server (its Handler serves requests in-process).
	Server *fxsvc.Server
}

// readyTimeout bounds how long Start waits for the app's verifier to hold
// keys.
const readyTimeout = 10 * time.Second

type started struct {
	fx.In
	Server *fxsvc.Server
	Gate   *authn.Gate `optional:"true"`
}

// Start builds the app from opts (they must include fxsvc.Serve), listens
// on 127.0.0.1 on a free port in plain HTTP whatever SVC_HTTP_ADDR,
// fxsvc.Addr or the TLS settings say, starts it, and waits until its
// verifier holds keys. It adds fxsvc.ForTests: an fxsvc.OAuthClient with no
// SVC_OAUTHCLIENT_* settings starts, failing only if a token is asked for;
// the kit's log lines go to t.Log (shown when the test fails) unless the
// app provides its own *zap.Logger. A build or start
// error, or keys that do not arrive within 10 seconds, fail the test. The
// app stops when the test ends.
func Start(t testing.TB, opts ...fx.Option) *App {
	t.Helper()
	var in started
	all := append([]fx.Option{fx.NopLogger}, opts...)
	all = append(all, fxsvc.ForTests(newTestLog(t)),
		fx.Supply(
			fx.Annotated{Group: kitlog.ServeOverrides, Target: fxsvc.Addr("127.0.0.1:0")},
			fx.Annotated{Group: kitlog.ServeOverrides, Target: fxsvc.TLSFiles("", "")},
		), fx.Populate(&in))
	app := fxtest.New(t, all...)
	app.RequireStart()
	t.Cleanup(app.RequireStop)
	if in.Gate != nil {
		if r, ok := in.Gate.Verifier().(interface{ Ready() error }); ok {
			if err := authntest.WaitReady(r, readyTimeout); err != nil {
				t.Fatalf("svctest: %v", err)
			}
		}
	}
	return &App{
		URL:    "http://" + in.Server.Addr(),
		Client: &http.Client{Timeout: 10 * time.Second},
		Server: in.Server,
	}
}
