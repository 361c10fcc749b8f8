package svctest_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/svctest"
)

// The app's own address never decides where a test listens: two tests can
// run side by side. The configured address is one this test holds, so an
// app that listened there would fail to start (a privileged port would not
// do: a test running as root binds it).
func TestStartListensOnAFreeLoopbackPort(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	t.Setenv("SVC_HTTP_ADDR", held.Addr().String())
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	a := svctest.Start(t, fx.Provide(func() http.Handler { return h }), fxsvc.Serve(fxsvc.Addr(held.Addr().String())))
	b := svctest.Start(t, fx.Provide(func() http.Handler { return h }), fxsvc.Serve())
	if a.URL == b.URL {
		t.Fatalf("both apps at %s", a.URL)
	}
	for _, app := range []*svctest.App{a, b} {
		if app.URL == "http://"+held.Addr().String() {
			t.Fatalf("app at the configured address %s", app.URL)
		}
		if r := app.Request("GET", "/").Send(t); r.Status != 200 || r.Body != "ok" {
			t.Fatalf("%s: %d %q", app.URL, r.Status, r.Body)
		}
	}
}

// The app's TLS settings, from the environment or fxsvc.TLSFiles, never
// decide how a test connects: it is plain HTTP (here the files do not even
// exist, so a server that tried TLS would fail to start).
func TestStartServesPlainHTTPWhateverTheTLSSettings(t *testing.T) {
	t.Setenv("SVC_HTTP_TLS_CERT_FILE", "/nonexistent/cert.pem")
	t.Setenv("SVC_HTTP_TLS_KEY_FILE", "/nonexistent/key.pem")
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	for _, serve := range []fx.Option{fxsvc.Serve(), fxsvc.Serve(fxsvc.TLSFiles("/nonexistent/c.pem", "/nonexistent/k.pem"))} {
		app := svctest.Start(t, fx.Provide(func() http.Handler { return h }), serve)
		if !strings.HasPrefix(app.URL, "http://127.0.0.1:") {
			t.Fatalf("URL = %s", app.URL)
		}
		if r := app.Request("GET", "/").Send(t); r.Status != 200 || r.Body != "ok" {
			t.Fatalf("%s: %d %q", app.URL, r.Status, r.Body)
		}
	}
}

// A test of a service that never calls out needs no SVC_OAUTHCLIENT_*
// variable, and one that does call out learns why it cannot.
func TestStartNeedsNoOutboundSettingsUntilATokenIsAskedFor(t *testing.T) {
	for _, k := range []string{"SVC_OAUTHCLIENT_ISSUER", "SVC_OAUTHCLIENT_TOKEN_ENDPOINT", "SVC_OAUTHCLIENT_CLIENT_ID"} {
		t.Setenv(k, "")
	}
	var billing *oauthclient.Pattern
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := billing.Token(r.Context()); !errors.Is(err, fxsvc.ErrOutboundNotConfigured) {
			http.Error(w, fmt.Sprint(err), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte("told"))
	})
	app := svctest.Start(t,
		fxsvc.OAuthClient(), fxsvc.ClientCredentials("billing"),
		fx.Provide(func() http.Handler { return h }),
		fx.Invoke(fx.Annotate(func(p *oauthclient.Pattern) { billing = p }, fx.ParamTags(`name:"billing"`))),
		fxsvc.Serve())
	if r := app.Request("GET", "/").Send(t); r.Status != 200 || r.Body != "told" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}

// Outside a test kit the same app still fails to start, naming the setting.
func TestOutboundSettingsAreStillRequiredInProduction(t *testing.T) {
	for _, k := range []string{"SVC_OAUTHCLIENT_ISSUER", "SVC_OAUTHCLIENT_TOKEN_ENDPOINT", "SVC_OAUTHCLIENT_CLIENT_ID"} {
		t.Setenv(k, "")
	}
	err := fx.New(fx.NopLogger, fxsvc.OAuthClient()).Err()
	if err == nil || !strings.Contains(err.Error(), "SVC_OAUTHCLIENT_ISSUER") {
		t.Fatalf("fx.New error = %v, want one naming SVC_OAUTHCLIENT_ISSUER", err)
	}
}
