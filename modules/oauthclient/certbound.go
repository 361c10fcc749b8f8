package oauthclient

import (
	"encoding/json"
	"errors"
	"net/http"
	"sync"
)

// maxBoundBases bounds the base transports a client keeps a
// certificate-presenting clone of; past it the clones start over (a
// caller that builds a transport per request pools nothing anyway).
const maxBoundBases = 64

var (
	// errBoundTokenSource is returned by a TokenSource whose token is
	// bound to the client certificate: x/oauth2 sends it over whatever
	// transport the caller has, which may not present the certificate.
	errBoundTokenSource = errors.New("oauthclient: the token is bound to the client's TLS certificate (RFC 8705) and a TokenSource cannot make x/oauth2 send it over that certificate: use Pattern.Transport (or Pattern.Client) instead")

	// errCertAuthenticate is returned by authenticate (bearer.Introspect) for a
	// client that authenticates with its certificate.
	errCertAuthenticate = &ConfigError{Setting: "oauthclient.TLSClientAuth", Problem: "the introspection request cannot present the client certificate on another request's connection: authenticate that endpoint (introspection) with a secret or a private key"}

	// errBoundBase is returned by a Transport whose base cannot be made to
	// present the client certificate a token is bound to.
	errBoundBase = errors.New("oauthclient: the token is bound to the client's TLS certificate (RFC 8705) and Pattern.Transport's base is not an *http.Transport the certificate can be added to: pass nil or an *http.Transport")
)

// boundBases holds, per base transport of Pattern.Transport, the clone
// that presents the client certificate.
type boundBases struct {
	mu sync.Mutex
	m  map[*http.Transport]*certTransports
}

// boundTransport returns the round tripper that sends a token bound to
// cert: raw (http.DefaultTransport when nil) presenting cert, traced as
// Pattern.Transport traces its requests.
func (c *Client) boundTransport(raw http.RoundTripper, cert *certificate) (http.RoundTripper, error) {
	base := httpTransport(raw)
	if base == nil {
		return nil, errBoundBase
	}
	b := &c.bound
	b.mu.Lock()
	ct := b.m[base]
	if ct == nil {
		if b.m == nil || len(b.m) >= maxBoundBases {
			for _, old := range b.m {
				old.closeIdle()
			}
			b.m = make(map[*http.Transport]*certTransports)
		}
		ct = &certTransports{base: base}
		b.m[base] = ct
	}
	b.mu.Unlock()
	// resendCounted names a repeat's attempt on its span; shared by every
	// pattern of the client, it does nothing for a request that is not a
	// Resilience repeat.
	return ct.get(cert, func(b http.RoundTripper) http.RoundTripper { return traced(resendCounted{b}) }), nil
}

// closeIdle closes the idle connections of every certificate-presenting
// transport, at Close.
func (b *boundBases) closeIdle() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ct := range b.m {
		ct.closeIdle()
	}
}

// tokenHTTP is the client's HTTP client for a token request presenting
// cert.
func (c *Client) tokenHTTP(cert *certificate) *http.Client {
	hc := *c.http
	hc.Transport = c.tokenCerts.get(cert, nil)
	return &hc
}

// certBound reports whether an access token fetched with a client
// certificate is bound to it. A JWT says so in cnf.x5t#S256 (RFC 8705
// §3.1), read, not verified: the token is ours to send. Whatever the
// client cannot read (an opaque token) is taken as bound, so it is only
// ever sent over the certificate.
func certBound(tok string) bool {
	payload, ok := jwtPayload(tok)
	if !ok {
		return true
	}
	var claims struct {
		Cnf struct {
			X5t string `json:"x5t#S256"`
		} `json:"cnf"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return true
	}
	return claims.Cnf.X5t != ""
}
