package fxsvc_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
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
		fxsvc.AuthnVerifierOptions(bearer.Leeway(10*time.Second)),
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
		opts   []bearer.VerifierOption
		want   string
	}{
		{"an issuer that is set but unusable", "http://idp.example.com", nil, "SVC_AUTHN_ISSUER"},
		{"a bad verifier option with no issuer", "", []bearer.VerifierOption{bearer.Leeway(time.Hour)}, "fxsvc.AuthnVerifierOptions"},
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

// Issue 20: `check` names the issuers the gate trusts on stderr, one line
// (stdout stays the route table), through secret.URL; with the issuer unset
// it says so.
func TestCheckListsTheTrustedIssuers(t *testing.T) {
	for _, tc := range []struct {
		name            string
		issuer, issuers string
		verifier        bearer.Verifier
		want            string
		absent          string
	}{
		{name: "unset", want: "svc: check: trusts issuers: (SVC_AUTHN_ISSUER unset)\n"},
		{name: "SVC_AUTHN_ISSUER", issuer: "https://login.example.com", want: "svc: check: trusts issuers: https://login.example.com\n"},
		{name: "SVC_AUTHN_ISSUERS", issuers: "https://partner.example.net api://p, https://login.example.com",
			want: "svc: check: trusts issuers: https://login.example.com, https://partner.example.net\n"},
		{name: "bearer.Issuers with a template", verifier: bearer.Issuers(
			bearer.New("https://login.example.com", "api"),
			bearer.New("https://login.microsoftonline.com/{tenantid}/v2.0", "api", bearer.Tenants("t1"))),
			want: "svc: check: trusts issuers: https://login.example.com, https://login.microsoftonline.com/{tenantid}/v2.0 (tenant t1)\n"},
		{name: "a template for two tenants", verifier: bearer.New("https://login.microsoftonline.com/{tenantid}/v2.0", "api", bearer.Tenants("t2", "t1")),
			want: "svc: check: trusts issuers: https://login.microsoftonline.com/{tenantid}/v2.0 (tenants t1, t2)\n"},
		{name: "a template for any tenant", verifier: bearer.Issuers(
			bearer.New("https://login.microsoftonline.com/{tenantid}/v2.0", "api", bearer.AnyTenant()),
			bearer.New("https://login.example.com", "api")),
			want: "svc: check: trusts issuers: https://login.example.com, https://login.microsoftonline.com/{tenantid}/v2.0 (any tenant)\n"},
		{name: "an app's verifier listing an issuer with a password", verifier: listingVerifier{"https://user:s3cret@idp.example.com/x?key=s3cret"},
			want: "svc: check: trusts issuers: https://***@idp.example.com/x?***\n", absent: "s3cret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SVC_AUTHN_ISSUER", tc.issuer)
			t.Setenv("SVC_AUTHN_ISSUERS", tc.issuers)
			t.Setenv("SVC_AUTHN_AUDIENCE", "api")
			var out, errOut bytes.Buffer
			code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Supply(productionRouter()), fxsvc.Authn(tc.verifier), fxsvc.Serve())
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			if !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("stderr %q, want the line %q", errOut.String(), tc.want)
			}
			if strings.Contains(out.String(), "trusts") || !lineWith(out.String(), "GET", "/admin", "authenticated", "admin") {
				t.Errorf("stdout is not the route table alone: %q", out.String())
			}
			if tc.absent != "" && strings.Contains(errOut.String()+out.String(), tc.absent) {
				t.Errorf("%q shown: %q", tc.absent, errOut.String())
			}
		})
	}
}

// listingVerifier is an app's verifier that lists its issuers.
type listingVerifier []string

func (listingVerifier) Verify(context.Context, string) (bearer.Principal, error) {
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

func (l listingVerifier) Issuers() []string { return l }

// A verifier of the app's own that lists no issuers adds no line.
func TestCheckListsNoIssuersForAnAppVerifier(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Supply(productionRouter()), fxsvc.Authn(tokens{}), fxsvc.Serve()); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if strings.Contains(errOut.String(), "trusts issuers") {
		t.Errorf("stderr %q", errOut.String())
	}
}
