package fxsvc_test

import (
	"bytes"
	"strings"
	"testing"

	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/dpop"
)

// `check` prints DPoP per route after the scopes: required where
// authn.RequireDPoP asks, allowed elsewhere.
func TestCheckPrintsDPoPPerRoute(t *testing.T) {
	t.Setenv("SVC_AUTHN_ISSUER", "")
	t.Setenv("SVC_AUTHN_AUDIENCE", "")
	v := newDPoPVerifierT(t)
	r := okRouter()
	r.With(authn.Require("payments"), authn.RequireDPoP).Post("/transfer", nil)
	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Supply(r), fxsvc.Authn(nil, authn.DPoP(v, false)), fxsvc.Serve()); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range [][]string{
		{"POST", "/transfer", "authenticated", "payments", "dpop=required"},
		{"GET", "/private", "authenticated", "dpop=allowed"},
		{"GET", "/ok", "anonymous", "dpop=allowed"},
	} {
		if !lineWith(out.String(), want...) {
			t.Errorf("no line %v in:\n%s", want, out.String())
		}
	}
}

// A route requiring DPoP behind a gate that takes none fails the app's
// build, naming the route and the setting.
func TestRequireDPoPWithoutDPoPFailsTheBuild(t *testing.T) {
	t.Setenv("SVC_AUTHN_ISSUER", "")
	t.Setenv("SVC_AUTHN_AUDIENCE", "")
	r := okRouter()
	r.With(authn.RequireDPoP).Post("/transfer", nil)
	var out, errOut bytes.Buffer
	code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Supply(r), fxsvc.Authn(nil), fxsvc.Serve())
	if code == 0 || !strings.Contains(errOut.String(), "POST /transfer") || !strings.Contains(errOut.String(), "SVC_AUTHN_DPOP") {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
}

func newDPoPVerifierT(t *testing.T) *dpop.Verifier {
	t.Helper()
	v, err := dpop.New()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// SVC_AUTHN_DPOP alone puts DPoP on every route `check` lists.
func TestCheckPrintsDPoPFromTheSetting(t *testing.T) {
	t.Setenv("SVC_AUTHN_ISSUER", "")
	t.Setenv("SVC_AUTHN_AUDIENCE", "")
	t.Setenv("SVC_AUTHN_DPOP", "required")
	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Supply(okRouter()), fxsvc.Authn(nil), fxsvc.Serve()); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !lineWith(out.String(), "GET", "/private", "authenticated", "dpop=required") {
		t.Errorf("no dpop=required on GET /private in:\n%s", out.String())
	}
}
