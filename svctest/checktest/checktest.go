// Package checktest runs svc's `check` on an app inside a test and reads
// its route lines: svc's own tests of what `check` shows use it, and so
// may an app's, to hold how each route is guarded.
package checktest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
)

// HumaApps are the two svc apps serving register's operations: through
// authnhuma.NewChi on a chi router, and through authnhuma.NewGo on an
// authn.ServeMux.
func HumaApps(register func(huma.API)) map[string]fx.Option {
	return map[string]fx.Option{
		"Huma on chi": fx.Provide(func() *chi.Mux {
			r := chi.NewRouter()
			register(authnhuma.NewChi(r, huma.DefaultConfig("Shop", "1.0.0")))
			return r
		}),
		"Huma on ServeMux": fx.Options(fxsvc.ServeMux(), fx.Provide(func() *authn.ServeMux {
			mux := authn.NewServeMux()
			register(authnhuma.NewGo(mux, huma.DefaultConfig("Shop", "1.0.0")))
			return mux
		})),
	}
}

// Check runs `check` on app with the gate (behindtest.Verifier) and the
// four components behind it, and returns each listed route ("GET /orders") with
// the rest of its line (its mode, scopes and notes), and the whole output.
func Check(t testing.TB, app fx.Option) (routes map[string]string, output string) {
	t.Helper()
	components := fx.Options(fxsvc.Errors(), fxsvc.Authn(behindtest.Verifier{}), fxsvc.RateLimits(),
		fxsvc.Idempotency(), fxsvc.Conditional(), fxsvc.ResponseCache(), fxsvc.Serve(fxsvc.Addr("256.0.0.1:1")))
	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, app, components); code != 0 {
		t.Fatalf("check: exit %d: %s", code, errOut.String())
	}
	routes = map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Fatalf("check printed %q", line)
		}
		routes[f[0]+" "+f[1]] = strings.Join(f[2:], " ")
	}
	return routes, out.String()
}
