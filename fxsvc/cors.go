package fxsvc

import (
	"net/http"

	"github.com/rs/cors"
	"go.uber.org/fx"
)

// CORS answers cross-origin requests (github.com/rs/cors with opts) outside
// the authentication gate: a preflight is answered before any token is
// asked for, and a refusal of the gate (401, 403, 429, 503) still carries
// the CORS headers, so a browser lets the page read it. It sits inside the
// error format, so its own refusals take the registered body.
//
// An app may instead add its own CORS middleware to its router: the gate
// lets a preflight through to a route that serves no protected OPTIONS
// method, so that middleware answers it.
func CORS(opts cors.Options) fx.Option {
	return Wrap(Wrapper{Name: "cors", Order: 50, Wrap: func(h http.Handler) (http.Handler, error) {
		return cors.New(opts).Handler(h), nil
	}})
}
