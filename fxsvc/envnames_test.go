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
	t.Setenv("SVC_OAUTHCLIENT_TOKEN_ENDPOINT", "https://as.example/token")
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "svc")
	t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET", "s3cret")
	for _, args := range [][]string{{"check"}, nil} {
		t.Run(strings.Join(append([]string{"run"}, args...), " "), func(t *testing.T) {
			core, logs := observer.New(zap.DebugLevel)
			var out, errOut bytes.Buffer
			code := fxsvc.Run(args, &out, &errOut, fx.Supply(zap.New(core), chi.NewRouter()),
				fxsvc.KnownVariables("SVC_ORDERS_LIMIT"),
				fxsvc.Authn(nil), fxsvc.OAuthClient(), fxsvc.ClientCredentials("pricing", oauthclient.Scopes("read")),
				fxsvc.Metrics(), fxsvc.Serve())
			// run fails for the issuer the typo left unset: the warning
			// comes before that error, which it explains.
			if wantCode := len(args) == 0; (code == 1) != wantCode || (wantCode && !strings.Contains(errOut.String(), "SVC_AUTHN_ISSUER is unset")) {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			got := map[string]string{}
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
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: did_you_mean %q, want %q", k, got[k], w)
				}
			}
			if len(got) != len(want) {
				t.Errorf("warned about %v, want only %v", got, want)
			}
			for _, e := range logs.All() {
				if strings.Contains(e.Message, value) || strings.Contains(fmt.Sprint(e.ContextMap()), value) {
					t.Errorf("a value reached the log: %v", e)
				}
			}
		})
	}
}
