package fxsvc_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/svctest/checktest"
)

// `check` lists authn.RequireIssuer as "issuer=<issuers>" after the
// route's scopes, on chi, authn.ServeMux and Huma (both routers).
func TestCheckPrintsRequireIssuer(t *testing.T) {
	apps := checktest.HumaApps(func(api huma.API) {
		huma.Get(api, "/partner", func(context.Context, *struct{}) (*struct{}, error) { return nil, nil },
			authnhuma.Use(authn.RequireIssuer(behindtest.Issuer)), authnhuma.Require("read"))
	})
	apps["chi"] = fx.Provide(func() *chi.Mux {
		r := chi.NewRouter()
		r.With(authn.RequireIssuer(behindtest.Issuer), authn.Require("read")).Get("/partner", ok)
		return r
	})
	apps["authn.ServeMux"] = fx.Options(fxsvc.ServeMux(), fx.Provide(func() *authn.ServeMux {
		mux := authn.NewServeMux()
		mux.Handle("GET /partner", authn.Require("read")(authn.RequireIssuer(behindtest.Issuer)(http.HandlerFunc(ok))))
		return mux
	}))
	for name, app := range apps {
		routes, out := checktest.Check(t, app)
		if got := routes["GET /partner"]; got != "authenticated read issuer="+behindtest.Issuer {
			t.Errorf("%s: GET /partner is %q in:\n%s", name, got, out)
		}
	}
}

// `check` prints the level a route asks under authn.ACRLevels as
// "acr>=2".
func TestCheckPrintsACRLevels(t *testing.T) {
	t.Setenv("SVC_AUTHN_ISSUER", "")
	t.Setenv("SVC_AUTHN_AUDIENCE", "")
	r := okRouter()
	r.With(authn.RequireACR("2")).Post("/pay", nil)
	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Supply(r), fxsvc.Authn(nil, authn.ACRLevels("1", "2", "3")), fxsvc.Serve()); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !lineWith(out.String(), "POST", "/pay", "authenticated", "acr>=2") {
		t.Errorf("no line POST /pay authenticated acr>=2 in:\n%s", out.String())
	}
}
