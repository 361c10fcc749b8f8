package checktest_test

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/svctest/checktest"
)

// testRoutesAreGuarded is a test function of the app's
// (TestRoutesAreGuarded in its own _test.go file).
func testRoutesAreGuarded(t *testing.T) {
	app := fx.Provide(func() *chi.Mux {
		r := chi.NewRouter()
		r.With(authn.Anonymous).Get("/hello", func(http.ResponseWriter, *http.Request) {})
		r.With(authn.Require("admin")).Get("/admin", func(http.ResponseWriter, *http.Request) {})
		return r
	})
	routes, out := checktest.Check(t, app)
	if routes["GET /admin"] != "authenticated admin" || routes["GET /hello"] != "anonymous" {
		t.Fatalf("check printed:\n%s", out)
	}
}

// In a test function: hold how each route of the app is guarded, as `check`
// prints it.
func ExampleCheck() {
	// Compile-only: the steps need a test's *testing.T, which an Example
	// has not; TestExampleCheck runs them.
	_ = testRoutesAreGuarded
}
