package svctest_test

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/svctest"
)

// testOrders is a test function of the app's (TestOrders in its own
// _test.go file).
func testOrders(t *testing.T) {
	iss := authntest.NewIssuer(t)
	app := svctest.Start(t,
		fxsvc.Errors(),
		fxsvc.Authn(iss.Discover()),
		fxsvc.Idempotency(),
		fx.Provide(func() *chi.Mux {
			r := chi.NewRouter()
			r.With(authn.Require("write"), idempotency.Required()).Post("/orders", func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusCreated)
			})
			return r
		}),
		fxsvc.Serve(),
	)
	writer := iss.Token(authntest.Scopes("write"))

	resp := app.Request("POST", "/orders").Token(writer).Header("Idempotency-Key", "k1").JSON(map[string]string{"item": "pen"}).Send(t)
	if resp.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.Status, resp.Body)
	}
	if resp := app.Request("GET", "/orders").Send(t); resp.Status != http.StatusUnauthorized {
		t.Fatalf("no token: %d", resp.Status)
	}
}

// In a test function: the whole app on a free loopback port, a real issuer,
// and one request per line.
func ExampleStart() {
	// Compile-only: the steps need a test's *testing.T, which an Example
	// has not; TestExampleStart runs them.
	_ = testOrders
}
