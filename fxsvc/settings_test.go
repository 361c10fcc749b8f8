package fxsvc_test

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
)

// badSettings is the deployment: a bad value in each of four
// components' variables.
func badSettings(t *testing.T) {
	t.Setenv("SVC_HTTP_READ_TIMEOUT", "soon")
	t.Setenv("SVC_HTTP_IDLE_TIMEOUT", "-1s")
	t.Setenv("SVC_METRICS_EXPORTER", "carrier-pigeon")
	t.Setenv("SVC_AUTHN_ISSUER", "https://issuer.example")
	t.Setenv("SVC_AUTHN_AUDIENCE", "")
	t.Setenv("SVC_LOG_LEVEL", "loud")
	t.Setenv("SVC_SHUTDOWN_TIMEOUT", "never")
	t.Setenv("SVC_TRACING_EXPORTER", "smoke-signals")
	t.Setenv("SVC_ACCESS_LOG", "sometimes")
}

// digInternals are what fx and dig say about themselves: the user wrote
// none of it.
var digInternals = []string{"could not build", "received non-nil error", "onlyOne", "PerApp", "fxsvc.Serve.func", "reflect", "missing dependencies"}

// Every bad setting of the app is reported at once, each naming its
// variable, with nothing of fx's wiring; by run and by check alike.
func TestEveryBadSettingIsReportedAtOnce(t *testing.T) {
	for _, args := range [][]string{nil, {"check"}} {
		t.Run(strings.Join(append([]string{"run"}, args...), " "), func(t *testing.T) {
			badSettings(t)
			var out, errOut bytes.Buffer
			code := fxsvc.Run(args, &out, &errOut, fx.Supply(chi.NewRouter()),
				fxsvc.Errors(), fxsvc.Authn(nil), fxsvc.Metrics(), fxsvc.Tracing(), fxsvc.Health(), fxsvc.Serve())
			if code != 1 {
				t.Fatalf("exit %d, want 1: %s", code, errOut.String())
			}
			msg := errOut.String()
			want := []string{"SVC_HTTP_READ_TIMEOUT", "SVC_HTTP_IDLE_TIMEOUT", "SVC_METRICS_EXPORTER",
				"SVC_AUTHN_AUDIENCE", "SVC_LOG_LEVEL", "SVC_SHUTDOWN_TIMEOUT", "SVC_TRACING_EXPORTER", "SVC_ACCESS_LOG"}
			for _, v := range want {
				if !strings.Contains(msg, v) {
					t.Errorf("%s is not named:\n%s", v, msg)
				}
			}
			for _, internal := range digInternals {
				if strings.Contains(msg, internal) {
					t.Errorf("%q reaches the user:\n%s", internal, msg)
				}
			}
			if !strings.HasPrefix(msg, "svc: ") || strings.Count(msg, "\n  ") != len(want) {
				t.Errorf("want one indented line per setting after one heading:\n%s", msg)
			}
		})
	}
}

// One bad setting is one line, as before.
func TestOneBadSettingIsOneLine(t *testing.T) {
	t.Setenv("SVC_HTTP_WRITE_TIMEOUT", "0")
	var out, errOut bytes.Buffer
	code := fxsvc.Run(nil, &out, &errOut, fx.Supply(chi.NewRouter()), fxsvc.Serve())
	want := "svc: fxsvc: SVC_HTTP_WRITE_TIMEOUT: want a positive Go duration such as 30s or 2m, or a number of seconds\n"
	if code != 1 || errOut.String() != want {
		t.Fatalf("exit %d, stderr %q, want %q", code, errOut.String(), want)
	}
}

// A constructor's own error reaches the user as it wrote it, without dig's
// chain naming onlyOneAuthnGatePerApp.
func TestConstructorErrorsReachTheUserWithoutFxWiring(t *testing.T) {
	var out, errOut bytes.Buffer
	v := bearer.New("https://issuer.example", "api")
	code := fxsvc.Run(nil, &out, &errOut, fx.Supply(chi.NewRouter()), fxsvc.Authn(v),
		fxsvc.AuthnVerifierOptions(bearer.Leeway(0)), fxsvc.Serve())
	msg := errOut.String()
	if code != 1 || !strings.HasPrefix(msg, "svc: fxsvc.AuthnVerifierOptions: the app passes its own verifier") {
		t.Fatalf("exit %d, stderr %q", code, msg)
	}
	for _, internal := range digInternals {
		if strings.Contains(msg, internal) {
			t.Errorf("%q reaches the user: %s", internal, msg)
		}
	}
}

// Two registrations of one component are the one case dig's duplicate is
// explained: as the rule it stands for, naming the option (every component:
// TestEveryComponentRegisteredTwiceIsNamed).
func TestTwoRegistrationsAreStillNamed(t *testing.T) {
	var out, errOut bytes.Buffer
	code := fxsvc.Run(nil, &out, &errOut, fxsvc.Metrics(), fxsvc.Metrics())
	if msg := errOut.String(); code != 1 || msg != "svc: only one metrics may be registered per app: fxsvc.Metrics is registered twice; remove the second registration\n" {
		t.Fatalf("exit %d, stderr %q", code, msg)
	}
}

// The outbound client's settings and each pattern's are checked with the
// rest; a pattern is not refused for lacking the client the graph gives it.
func TestOutboundSettingsAreReportedAtOnce(t *testing.T) {
	t.Setenv("SVC_OAUTHCLIENT_TOKEN_ENDPOINT", "https://as.example/token")
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "orders")
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET", "hunter2")
	t.Setenv("SVC_OAUTHCLIENT_TIMEOUT", "-5s")
	t.Setenv("SVC_CLIENTCREDENTIALS_BILLING_RESOURCE", "not a url")
	t.Setenv("SVC_HTTP_MAX_HEADER_BYTES", "lots")
	var out, errOut bytes.Buffer
	code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Supply(chi.NewRouter()),
		fxsvc.OAuthClient(), fxsvc.ClientCredentials("billing"), fxsvc.Serve())
	msg := errOut.String()
	if code != 1 || !strings.HasPrefix(msg, "svc: 3 invalid settings:") {
		t.Fatalf("exit %d, stderr:\n%s", code, msg)
	}
	for _, v := range []string{"SVC_OAUTHCLIENT_TIMEOUT", "SVC_CLIENTCREDENTIALS_BILLING_RESOURCE", "SVC_HTTP_MAX_HEADER_BYTES"} {
		if !strings.Contains(msg, v) {
			t.Errorf("%s is not named:\n%s", v, msg)
		}
	}
	if strings.Contains(msg, "hunter2") || strings.Contains(msg, "WithClient") {
		t.Errorf("stderr:\n%s", msg)
	}
}

// An app's own setting joins the report; built with fx.New, its check
// still fails the build, and a good one does not run twice under Run.
func TestAnAppsOwnSettingsAreCheckedWithTheComponents(t *testing.T) {
	badFormat := fxsvc.CheckSettings(func() error { return errors.New("orders: SVC_ORDERS_LIMIT: want a number") })
	t.Setenv("SVC_HTTP_READ_TIMEOUT", "soon")
	var out, errOut bytes.Buffer
	code := fxsvc.Run(nil, &out, &errOut, badFormat, fx.Supply(chi.NewRouter()), fxsvc.Serve())
	if msg := errOut.String(); code != 1 || !strings.HasPrefix(msg, "svc: 2 invalid settings:") ||
		!strings.Contains(msg, "SVC_ORDERS_LIMIT") || !strings.Contains(msg, "SVC_HTTP_READ_TIMEOUT") {
		t.Fatalf("exit %d, stderr:\n%s", code, msg)
	}

	if err := fx.New(fx.NopLogger, badFormat).Err(); err == nil || !strings.Contains(err.Error(), "SVC_ORDERS_LIMIT") {
		t.Fatalf("fx.New: %v", err)
	}
	if err := fx.New(fx.NopLogger, fxsvc.CheckSettings(nil)).Err(); err == nil {
		t.Fatal("a nil check is accepted")
	}

	runs := 0
	counted := fxsvc.CheckSettings(func() error { runs++; return nil })
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, counted); code != 0 || runs != 1 {
		t.Fatalf("exit %d, the check ran %d times: %s", code, runs, errOut.String())
	}
}

// A test app (fxsvc.ForTests) needs no outbound identity, under the
// settings check as when built.
func TestATestAppNeedsNoOutboundSettings(t *testing.T) {
	for _, v := range []string{"SVC_OAUTHCLIENT_ISSUER", "SVC_OAUTHCLIENT_TOKEN_ENDPOINT", "SVC_OAUTHCLIENT_CLIENT_ID"} {
		t.Setenv(v, "")
	}
	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, fxsvc.ForTests(nil), fxsvc.OAuthClient()); code != 0 {
		t.Fatalf("with ForTests: exit %d: %s", code, errOut.String())
	}
	errOut.Reset()
	if code := fxsvc.Run(nil, &out, &errOut, fxsvc.OAuthClient()); code != 1 || !strings.Contains(errOut.String(), "SVC_OAUTHCLIENT_") {
		t.Fatalf("started without: exit %d: %s", code, errOut.String())
	}
}

// Regression: issue 24 item 7.
// `check` lists the routes of an app with no deployment settings at all,
// inbound or outbound, and names on stderr what it could not resolve; a
// setting that is set and bad still fails it.
func TestCheckListsRoutesWithoutDeploymentSettings(t *testing.T) {
	for _, v := range []string{"SVC_AUTHN_ISSUER", "SVC_AUTHN_AUDIENCE", "SVC_OAUTHCLIENT_ISSUER", "SVC_OAUTHCLIENT_TOKEN_ENDPOINT", "SVC_OAUTHCLIENT_CLIENT_ID"} {
		t.Setenv(v, "")
	}
	app := func() fx.Option {
		r := chi.NewRouter()
		r.With(authn.Require("read")).Get("/reports", func(http.ResponseWriter, *http.Request) {})
		return fx.Options(fx.Supply(r), fxsvc.Authn(nil), fxsvc.OAuthClient(), fxsvc.ClientCredentials("billing"), fxsvc.Serve())
	}
	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, app()); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "/reports") || !strings.Contains(out.String(), "authenticated") {
		t.Fatalf("routes not listed:\n%s", out.String())
	}
	for _, v := range []string{"SVC_AUTHN_ISSUER", "SVC_OAUTHCLIENT_ISSUER"} {
		if !strings.Contains(errOut.String(), v) || !strings.Contains(errOut.String(), "not resolved") {
			t.Errorf("%s is not named as unresolved: %q", v, errOut.String())
		}
	}
	t.Setenv("SVC_CLIENTCREDENTIALS_BILLING_SCOPES", "read\"write")
	out.Reset()
	errOut.Reset()
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, app()); code != 1 || !strings.Contains(errOut.String(), "SVC_CLIENTCREDENTIALS_BILLING_SCOPES") {
		t.Fatalf("a bad setting beside the unset ones: exit %d: %s", code, errOut.String())
	}
}

// Serve's bad options are all reported, with its bad variables.
func TestServesBadOptionsAndVariablesAreReportedTogether(t *testing.T) {
	t.Setenv("SVC_HTTP_IDLE_TIMEOUT", "idle")
	var out, errOut bytes.Buffer
	code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Supply(chi.NewRouter()),
		fxsvc.Serve(fxsvc.ReadTimeout(-1), fxsvc.MaxHeaderBytes(0)))
	msg := errOut.String()
	if code != 1 || !strings.HasPrefix(msg, "svc: 3 invalid settings:") {
		t.Fatalf("exit %d, stderr:\n%s", code, msg)
	}
	for _, s := range []string{"SVC_HTTP_IDLE_TIMEOUT", "fxsvc.ReadTimeout", "fxsvc.MaxHeaderBytes"} {
		if !strings.Contains(msg, s) {
			t.Errorf("%s is not named:\n%s", s, msg)
		}
	}
}
