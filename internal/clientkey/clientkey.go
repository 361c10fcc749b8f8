// Package clientkey reaches the side of an OAuth client that only svc's
// own packages use: authn authenticates its introspection requests as the
// client, checks that a signed answer names its client ID, and
// authenticates the introspection answers it shares on Redis with a key
// derived from the client's shared secret, which only the service's
// replicas can compute. The secret itself never leaves package
// oauthclient; an app never needs these, so oauthclient does not export
// them.
//
// Package oauthclient fills the variables in its init. Every package that calls
// it imports oauthclient (it holds an *oauthclient.Client to pass), so it
// is set before anything calls it. The client is passed as any because
// this package sits below oauthclient; a value that is not an
// *oauthclient.Client is a defect of svc and panics.
package clientkey

import (
	"context"
	"net/http"
	"net/url"
)

// Derive returns size bytes derived with HKDF-SHA256 from client's shared
// secret (client_secret_basic or client_secret_post), info naming the
// purpose, so that keys for two purposes never coincide. ok is false for
// a client that authenticates without a shared secret (private_key_jwt);
// err is a secret file that cannot be read, naming the setting, never the
// secret.
var Derive func(client any, info string, size int) (key []byte, ok bool, err error)

// Authenticate adds client's authentication to a form POST for another
// endpoint of its authorization server (RFC 7662 introspection): an
// Authorization header for client_secret_basic, form fields for
// client_secret_post and private_key_jwt, exactly as for a token request.
// Its errors are the client's (discovery, an unreadable secret or
// assertion file, a closed client); the credentials never appear in them.
var Authenticate func(client any, ctx context.Context, header http.Header, form url.Values) error

// ClientID is the client ID client authenticates as: the audience a
// signed introspection answer names (RFC 9701).
var ClientID func(client any) string
