package svctest_test

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/svctest"
)

// docs/testing.md: a whole service test in under 30 lines.
func TestReportsNeedTheReadScope(t *testing.T) {
	iss := authntest.NewIssuer(t)
	app := svctest.Start(t,
		fxsvc.Errors(),
		fxsvc.Authn(iss.Discover()),
		fx.Provide(func() *chi.Mux {
			r := chi.NewRouter()
			r.With(authn.Require("read")).Get("/reports", func(w http.ResponseWriter, r *http.Request) {
				p, _ := authn.PrincipalFrom(r.Context())
				_, _ = w.Write([]byte("reports for " + p.Subject))
			})
			return r
		}),
		fxsvc.Serve(),
	)

	if r := app.Request("GET", "/reports").Token(iss.Token(authntest.Subject("alice"), authntest.Scopes("read"))).Send(t); r.Status != 200 || r.Body != "reports for alice" {
		t.Fatalf("reader: %d %s", r.Status, r.Body)
	}
	if r := app.Request("GET", "/reports").Token(iss.Token(authntest.Scopes("write"))).Send(t); r.Status != 403 {
		t.Fatalf("writer: %d %s", r.Status, r.Body)
	}
	if r := app.Request("GET", "/reports").Send(t); r.Status != 401 || r.Header.Get("WWW-Authenticate") != `Bearer scope="read"` {
		t.Fatalf("no token: %d %v", r.Status, r.Header)
	}
}
