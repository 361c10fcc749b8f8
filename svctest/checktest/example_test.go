package checktest_test

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/svctest/checktest"
)

// In a test function: hold how each route of the app is guarded, as `check`
// prints it.
func ExampleCheck() {
	testRoutesAreGuarded := func(t *testing.T) {
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
	_ = testRoutesAreGuarded
}
