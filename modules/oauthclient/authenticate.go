package oauthclient

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Authenticate adds the client's authentication to a form POST for another
// endpoint of the same authorization server, such as RFC 7662 token
// introspection (bearer.Introspect uses it) or RFC 7009 revocation: an
// Authorization header for client_secret_basic, form fields for
// client_secret_post and private_key_jwt, exactly as for a token request
// (a fresh assertion every call, never reused). So a resource server that
// introspects tokens authenticates with the one client configuration it
// already has.
//
// It reads the server metadata first when the method depends on it
// (Secret(Auto), or an assertion whose audience is the token endpoint),
// running discovery if it has not run. It returns the discovery failure
// (an *UnavailableError or a *DiscoveryError), a *ConfigError for an
// unreadable secret or assertion file, or ErrClosed after Close. The
// credentials it adds never appear in an error. With [TLSClientAuth] it
// fails with a *ConfigError: the certificate belongs on the request's
// connection, which Authenticate cannot reach.
func (c *Client) Authenticate(ctx context.Context, header http.Header, form url.Values) error {
	if c.closedFlag.Load() {
		return ErrClosed
	}
	if c.cert != nil {
		return errCertAuthenticate
	}
	meta, err := c.metadata(ctx, time.Time{})
	if err != nil {
		return err
	}
	return c.auth.authenticate(ctx, c, meta, header, form)
}
