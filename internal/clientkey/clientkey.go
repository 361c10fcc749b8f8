// Package clientkey derives keys from an OAuth client's shared secret for
// svc's own packages: authn authenticates the introspection answers it
// shares on Redis with a key only the service's replicas can compute. The
// secret itself never leaves package oauthclient; an app never needs this,
// so oauthclient does not export it.
//
// Package oauthclient fills Derive in its init. Every package that calls
// it imports oauthclient (it holds an *oauthclient.Client to pass), so it
// is set before anything calls it. The client is passed as any because
// this package sits below oauthclient; a value that is not an
// *oauthclient.Client is a defect of svc and panics.
package clientkey

// Derive returns size bytes derived with HKDF-SHA256 from client's shared
// secret (client_secret_basic or client_secret_post), info naming the
// purpose, so that keys for two purposes never coincide. ok is false for
// a client that authenticates without a shared secret (private_key_jwt);
// err is a secret file that cannot be read, naming the setting, never the
// secret.
var Derive func(client any, info string, size int) (key []byte, ok bool, err error)
