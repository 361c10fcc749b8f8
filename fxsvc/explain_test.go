package fxsvc_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/rs/cors"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/redisstore/fxredis"
)

// Regression: issue 24 item 5.
// Every component registered twice is explained in the kit's words, naming
// the option registered twice, never as dig's "already provided by" and a
// file of the kit.
func TestEveryComponentRegisteredTwiceIsNamed(t *testing.T) {
	iss := authntest.NewIssuer(t)
	for _, tc := range []struct {
		name string
		opt  fx.Option
		want string
	}{
		{"Serve", fxsvc.Serve(), "only one HTTP server may be registered per app: fxsvc.Serve is registered twice; remove the second registration"},
		{"ServeMux", fxsvc.ServeMux(), "only one router may be registered per app: fxsvc.ServeMux provides the app's http.Handler"},
		{"Redis", fxredis.Redis(), "only one redis component may be registered per app, got fxredis.Redis and fxredis.Redis"},
		{"ForTests", fxsvc.ForTests(nil), "only one test mode may be registered per app: fxsvc.ForTests is registered twice"},
		{"Authn", fxsvc.Authn(iss.Verifier()), "only one authentication gate may be registered per app: fxsvc.Authn is registered twice"},
		{"OAuthClient", fxsvc.OAuthClient(), "only one oauth client may be registered per app: fxsvc.OAuthClient is registered twice"},
		{"ClientCredentials", fxsvc.ClientCredentials("pricing"), `only one outbound pattern may be named "pricing" per app`},
		{"Metrics", fxsvc.Metrics(), "only one metrics may be registered per app: fxsvc.Metrics is registered twice"},
		{"Tracing", fxsvc.Tracing(), "only one tracing may be registered per app: fxsvc.Tracing is registered twice"},
		{"Errors", fxsvc.Errors(), "only one error format may be registered per app: fxsvc.Errors or fxsvc.TMFErrors is registered twice"},
		{"RateLimits", fxsvc.RateLimits(), "only one rate limits may be registered per app: fxsvc.RateLimits is registered twice"},
		{"Idempotency", fxsvc.Idempotency(), "only one idempotency may be registered per app: fxsvc.Idempotency is registered twice"},
		{"Conditional", fxsvc.Conditional(), "only one conditional may be registered per app: fxsvc.Conditional is registered twice"},
		{"ResponseCache", fxsvc.ResponseCache(), "only one response cache may be registered per app: fxsvc.ResponseCache is registered twice"},
		{"Health", fxsvc.Health(), "only one health component may be registered per app, got fxsvc.Health and fxsvc.Health: remove one of them"},
		{"CORS", fxsvc.CORS(cors.Options{AllowedOrigins: []string{"https://app.example"}}), "only one cors component may be registered per app, got fxsvc.CORS and fxsvc.CORS: remove one of them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			router := fx.Supply(chi.NewRouter())
			if tc.name == "ServeMux" {
				router = fx.Supply(authn.NewServeMux())
			}
			var out, errOut bytes.Buffer
			code := fxsvc.Run([]string{"check"}, &out, &errOut, router, tc.opt, tc.opt)
			msg := errOut.String()
			if code != 1 || !strings.HasPrefix(msg, "svc: "+tc.want) {
				t.Fatalf("exit %d, stderr %q\nwant it to start with %q", code, msg, "svc: "+tc.want)
			}
			if strings.Contains(msg, "already provided") || strings.Contains(msg, ".go:") || strings.Contains(msg, "svc: svc:") {
				t.Fatalf("dig's words or a doubled prefix: %q", msg)
			}
		})
	}
}
