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

// `check` prints a route's step-up (authn.RequireACR, authn.MaxAge) after
// its scopes, in the same column.
func TestCheckPrintsTheStepUp(t *testing.T) {
	t.Setenv("SVC_AUTHN_ISSUER", "")
	t.Setenv("SVC_AUTHN_AUDIENCE", "")
	r := okRouter()
	r.With(authn.Require("payments"), authn.RequireACR("phr", "phrh"), authn.MaxAge(5*time.Minute)).Post("/pay", nil)
	r.With(authn.MaxAge(time.Hour)).Get("/profile", nil)
	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Supply(r), fxsvc.Authn(nil), fxsvc.Serve()); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range [][]string{
		{"POST", "/pay", "authenticated", "payments", "acr=phr,phrh", "max_age=300s"},
		{"GET", "/profile", "authenticated", "max_age=3600s"},
	} {
		if !lineWith(out.String(), want...) {
			t.Errorf("no line %v in:\n%s", want, out.String())
		}
	}
}

// `check` names a route of a sub-router as the gate and chi's Find do: a
// route under Route("/", …) is "/a/x", not chi.Walk's "/a/*/x".
func TestCheckNamesSubRouterRoutesAsChiFindsThem(t *testing.T) {
	t.Setenv("SVC_AUTHN_ISSUER", "")
	t.Setenv("SVC_AUTHN_AUDIENCE", "")
	r := okRouter()
	r.Route("/a", func(r chi.Router) {
		r.Route("/", func(r chi.Router) { r.With(authn.Anonymous).Get("/x", nil) })
	})
	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Supply(r), fxsvc.Authn(nil), fxsvc.Serve()); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !lineWith(out.String(), "GET", "/a/x", "anonymous") || strings.Contains(out.String(), "/*/") {
		t.Errorf("no line GET /a/x anonymous, or a walked pattern, in:\n%s", out.String())
	}
}
