// Package upstreamkind carries how an outbound token failure is answered
// from modules/oauthclient, which raises it, to modules/errors, which
// renders it: 503 upstream-token-unavailable or 502 upstream-token-refused.
// Neither package imports the other (oauthclient stays a leaf, and
// svcerrors links no OAuth client into an app that makes no outbound
// call), and the failures carry no exported method for it.
//
// oauthclient registers its namer when it is initialised; an app that does
// not link oauthclient has no such failure to name.
package upstreamkind

import "time"

// The anchors of the two kinds, documented in docs/errors.md.
const (
	// Unavailable: the authorization server is down, slow, failing or
	// asked for a pause; retrying later can help.
	Unavailable = "upstream-token-unavailable"
	// Refused: the authorization server refused the service's client or
	// the token it asked for; retrying will not help until the service's
	// configuration changes.
	Refused = "upstream-token-refused"
	// BulkheadFull: an outbound call was refused because its API already
	// had as many requests in flight as its bulkhead admits.
	BulkheadFull = "bulkhead-full"
)

// Namer names the kind err answers with (Unavailable or Refused) and how
// long until retrying can help (zero when unknown); ok is false for an
// error it does not know.
type Namer func(err error) (anchor string, retryAfter time.Duration, ok bool)

// namer is set once, by a package initialiser, before any request runs:
// no lock is needed to read it.
var namer Namer

// Register makes n the namer. It is called from oauthclient's init.
func Register(n Namer) { namer = n }

// Name names err's kind through the registered namer; ok is false when
// none is registered or it does not know err.
func Name(err error) (anchor string, retryAfter time.Duration, ok bool) {
	if namer == nil {
		return "", 0, false
	}
	return namer(err)
}
