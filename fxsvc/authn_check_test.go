package fxsvc_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
)

func productionRouter() *chi.Mux {
	r := okRouter()
	r.With(authn.Require("admin")).Get("/admin", nil)
	return r
}

// Regression: issue 10 (`check` must not need production settings).
func TestCheckListsRoutesWithoutTheIssuerSetting(t *testing.T) {
	t.Setenv("SVC_AUTHN_ISSUER", "")
	t.Setenv("SVC_AUTHN_AUDIENCE", "")
	var out, errOut bytes.Buffer
	code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Supply(productionRouter()),
		fxsvc.Authn(nil, authn.Exclude("/ok"), authn.Resource("https://api.example")),
		fxsvc.AuthnVerifierOptions(authn.Leeway(10*time.Second)),
		fxsvc.Health(), fxsvc.Serve())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range [][]string{
		{"GET", "/admin", "authenticated", "admin"},
		{"GET", "/ok", "excluded"},
		{"GET", "/private", "authenticated"},
		{"GET", "/readyz", "excluded"},
		{"GET", "/.well-known/oauth-protected-resource", "excluded"},
	} {
		if !lineWith(out.String(), want...) {
			t.Errorf("no line %v in:\n%s", want, out.String())
		}
	}
}

func TestCheckStillRefusesWhatItCanSee(t *testing.T) {
	for _, tc := range []struct {
		name   string
		issuer string
		opts   []authn.VerifierOption
		want   string
	}{
		{"an issuer that is set but unusable", "http://idp.example.com", nil, "SVC_AUTHN_ISSUER"},
		{"a bad verifier option with no issuer", "", []authn.VerifierOption{authn.Leeway(time.Hour)}, "fxsvc.AuthnVerifierOptions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SVC_AUTHN_ISSUER", tc.issuer)
			t.Setenv("SVC_AUTHN_AUDIENCE", "api")
			opts := []fx.Option{fx.Supply(productionRouter()), fxsvc.Authn(nil), fxsvc.Serve()}
			if tc.opts != nil {
				opts = append(opts, fxsvc.AuthnVerifierOptions(tc.opts...))
			}
			var out, errOut bytes.Buffer
			if code := fxsvc.Run([]string{"check"}, &out, &errOut, opts...); code != 1 || !strings.Contains(errOut.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q; want 1 naming %s", code, errOut.String(), tc.want)
			}
		})
	}
}

// Only `check` gets the stand-in: running the same app without the issuer
// still fails, naming the variable.
func TestRunStillNeedsTheIssuer(t *testing.T) {
	t.Setenv("SVC_AUTHN_ISSUER", "")
	t.Setenv("SVC_HTTP_ADDR", "127.0.0.1:0")
	var out, errOut bytes.Buffer
	code := fxsvc.Run(nil, &out, &errOut, fx.Supply(productionRouter()), fxsvc.Authn(nil), fxsvc.Serve())
	if code != 1 || !strings.Contains(errOut.String(), "SVC_AUTHN_ISSUER is unset") {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
}
