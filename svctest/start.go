// Package svctest starts a whole svc app inside a test: the app's own fx
// options, served on a free loopback port, ready (its verifier holds keys)
// before the test's first request, and stopped at the test's cleanup.
//
//	iss := authntest.NewIssuer(t)
//	app := svctest.Start(t, fxsvc.Errors(), fxsvc.Authn(iss.Discover()), fx.Provide(newRouter), fxsvc.Serve())
//	resp := app.Get(t, "/admin", iss.Token(authntest.Scopes("admin")))
//
// It is for tests only and is linked into no binary that does not import it.
package svctest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/svckit/svc/fxsvc"
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

// ReadyTimeout bounds how long Start waits for the app's verifier to hold
// keys.
const ReadyTimeout = 10 * time.Second

type started struct {
	fx.In
	Server *fxsvc.Server
	Gate   *authn.Gate `optional:"true"`
}

// Start builds the app from opts (they must include fxsvc.Serve), listens
// on 127.0.0.1 on a free port in plain HTTP whatever SVC_HTTP_ADDR,
// fxsvc.Addr or the TLS settings say, starts it, and waits until its
// verifier holds keys. It adds fxsvc.ForTests: an fxsvc.OAuthClient with no
// SVC_OAUTHCLIENT_* settings starts, failing only if a token is asked for. A build or start
// error, or keys that do not arrive within ReadyTimeout, fail the test. The
// app stops when the test ends.
func Start(t testing.TB, opts ...fx.Option) *App {
	t.Helper()
	var in started
	all := append([]fx.Option{fx.NopLogger}, opts...)
	all = append(all, fxsvc.ForTests(),
		fxsvc.ServeOverride(fxsvc.Addr("127.0.0.1:0"), fxsvc.TLSFiles("", "")), fx.Populate(&in))
	app := fxtest.New(t, all...)
	app.RequireStart()
	t.Cleanup(app.RequireStop)
	if in.Gate != nil {
		if r, ok := in.Gate.Verifier().(interface{ Ready() error }); ok {
			if err := authntest.WaitReady(r, ReadyTimeout); err != nil {
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

// Response is an answer read whole.
type Response struct {
	Status int
	Header http.Header
	Body   string
}

// Get sends GET path with token as a bearer credential ("" sends none) and
// reads the whole answer. A transport error fails the test.
func (a *App) Get(t testing.TB, path, token string) Response {
	t.Helper()
	return a.Do(t, http.MethodGet, path, token, "")
}

// Do sends a request with token as a bearer credential ("" sends none) and
// body (JSON when it starts with '{' or '['), and reads the whole answer.
// A transport error fails the test.
func (a *App) Do(t testing.TB, method, path, token, body string) Response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, a.URL+path, rd)
	if err != nil {
		t.Fatalf("svctest: %v", err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" && (body[0] == '{' || body[0] == '[') {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.Client.Do(req)
	if err != nil {
		t.Fatalf("svctest: %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("svctest: reading %s %s: %v", method, path, err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}
}
