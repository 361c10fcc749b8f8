package fxsvc_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/oauthclient"
)

// Regression: issue 24 item 10.
// A set SVC_ variable no component reads, close to one that is read, was
// ignored silently: each is warned about once at start with the nearest
// known name and never its value; exact names, the app's declared ones
// and names far from every known one are left alone.
func TestMisspeltVariablesAreWarnedAboutWithTheNearestName(t *testing.T) {
	const value = "v4lue-never-shown"
	want := map[string]string{
		"SVC_CLIENTCREDENTIALS_PRICNG_SCOPES": "SVC_CLIENTCREDENTIALS_PRICING_SCOPES",
		"SVC_AUTHN_ISUER":                     "SVC_AUTHN_ISSUER",
		"SVC_HTPT_ADDR":                       "SVC_HTTP_ADDR",
		"SVC_METRICS_EXPORTR":                 "SVC_METRICS_EXPORTER",
		"SVC_OAUTHCLIENT_CLIENTID":            "SVC_OAUTHCLIENT_CLIENT_ID",
		"SVC_ORDERS_LIMT":                     "SVC_ORDERS_LIMIT",
	}
	for k := range want {
		t.Setenv(k, value)
	}
	for _, k := range []string{
		"SVC_CLIENTCREDENTIALS_PRICING_SCOPES", // exact
		"SVC_ORDERS_LIMIT",                     // the app's own, declared
		"SVC_INVENTORY_REGION",                 // far from every known name
		"SVC_REDIS_URLS",                       // Redis is not in this app
	} {
		t.Setenv(k, "read")
	}
	// A free port: the app that starts must not depend on 8080 being free.
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
	t.Setenv("SVC_OAUTHCLIENT_TOKEN_ENDPOINT", "https://as.example/token")
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "svc")
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET", "s3cret")
	for _, tc := range []struct {
		name   string
		args   []string
		issuer string // SVC_AUTHN_ISSUER: unset, run fails
		code   int
		logged bool // a WARN line each, else a plain line on stderr
	}{
		{"check", []string{"check"}, "", 0, false},
		{"run, failing for the issuer the typo left unset", nil, "", 1, false},
		{"run, started", nil, "http://127.0.0.1:1", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SVC_AUTHN_ISSUER", tc.issuer)
			t.Setenv("SVC_AUTHN_AUDIENCE", "api")
			core, logs := observer.New(zap.DebugLevel)
			var out, errOut bytes.Buffer
			code := fxsvc.Run(tc.args, &out, &errOut, fx.Supply(zap.New(core), chi.NewRouter()),
				fxsvc.KnownVariables("SVC_ORDERS_LIMIT"),
				fxsvc.Authn(nil), fxsvc.OAuthClient(), fxsvc.ClientCredentials("pricing", oauthclient.Scopes("read")),
				fxsvc.Metrics(), fxsvc.Serve(), fx.Invoke(func(sd fx.Shutdowner) error { return sd.Shutdown() }))
			if code != tc.code || (code == 1 && !strings.Contains(errOut.String(), "SVC_AUTHN_ISSUER is unset")) {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			got := map[string]string{}
			if tc.logged {
				for _, e := range logs.FilterMessageSnippet("unknown variable").All() {
					m := e.ContextMap()
					v, _ := m["variable"].(string)
					if _, dup := got[v]; dup {
						t.Errorf("%s warned about twice", v)
					}
					got[v], _ = m["did_you_mean"].(string)
					if e.Level != zap.WarnLevel {
						t.Errorf("%s: level %v", v, e.Level)
					}
				}
			} else {
				for _, line := range strings.Split(errOut.String(), "\n") {
					var v, w string
					if n, _ := fmt.Sscanf(line, "svc: warning: %s is not a variable this app reads; did you mean %s", &v, &w); n == 2 {
						if _, dup := got[v]; dup {
							t.Errorf("%s warned about twice", v)
						}
						got[v] = strings.TrimSuffix(w, "?")
					}
				}
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: did you mean %q, want %q\n%s", k, got[k], w, errOut.String())
				}
			}
			if len(got) != len(want) {
				t.Errorf("warned about %v, want only %v", got, want)
			}
			if strings.Contains(errOut.String(), value) {
				t.Errorf("a value reached stderr: %s", errOut.String())
			}
			for _, e := range logs.All() {
				if strings.Contains(e.Message, value) || strings.Contains(fmt.Sprint(e.ContextMap()), value) {
					t.Errorf("a value reached the log: %v", e)
				}
			}
		})
	}
}
