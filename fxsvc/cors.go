package fxsvc

import (
	"slices"

	"github.com/rs/cors"
	"go.uber.org/fx"

	"github.com/svckit/svc/lifecycle"
)

// CORS answers cross-origin requests (github.com/rs/cors with opts) outside
// the authentication gate: a preflight is answered before any token is
// asked for, and a refusal of the gate (401, 403, 429, 503) still carries
// the CORS headers, so a browser lets the page read it. It sits inside the
// error format, so its own refusals take the registered body.
//
// It refuses (the app fails to build) AllowCredentials with every origin
// allowed ("*" in AllowedOrigins, or none listed and no origin function):
// rs/cors would answer Access-Control-Allow-Origin: * beside
// Access-Control-Allow-Credentials: true, which the Fetch standard forbids
// and browsers reject. List the origins instead.
//
// An app may instead add its own CORS middleware to its router: the gate
// lets a preflight through to a route that serves no protected OPTIONS
// method, so that middleware answers it. One per app: a second fails the
// build naming fxsvc.CORS (two would each add their headers).
func CORS(opts cors.Options) fx.Option {
	return withKit(fx.Options(lifecycle.Singleton("cors", "fxsvc.CORS"),
		fx.Supply(fx.Annotated{Group: "svc.http.cors", Target: corsOn{opts: opts}})))
}

// everyOrigin reports whether opts allow any origin, as rs/cors reads them.
func everyOrigin(opts cors.Options) bool {
	//lint:ignore SA1019 an app's options may still set the deprecated field, and rs/cors still reads it
	if opts.AllowOriginFunc != nil || opts.AllowOriginRequestFunc != nil || opts.AllowOriginVaryRequestFunc != nil {
		return false
	}
	return len(opts.AllowedOrigins) == 0 || slices.Contains(opts.AllowedOrigins, "*")
}
