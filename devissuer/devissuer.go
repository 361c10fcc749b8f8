// Package devissuer is a DEVELOPMENT-ONLY authorization server on
// loopback that issues every token svc's gate checks: JWT access tokens
// (RFC 9068, typ at+jwt) and opaque ones with introspection (RFC 7662,
// RFC 9701 signed answers when asked) and revocation (RFC 7009);
// DPoP-bound tokens (RFC 9449, cnf.jkt, token_type DPoP, nonces on
// demand); certificate-bound ones (RFC 8705, cnf.x5t#S256, with its own
// loopback CA); step-up claims (acr, amr, auth_time, sid) and any extra
// claim. Its token endpoint takes client credentials (client_secret_basic,
// client_secret_post, private_key_jwt, tls_client_auth), token exchange
// (RFC 8693, with actor_token), refresh tokens and the authorization code
// with PKCE behind a login page that asks for nothing. Discovery (RFC 8414
// and OpenID) names every endpoint, so bearer.Discover and oauthclient
// configure themselves from the issuer URL alone.
//
// It exists so that a service under development, `make run` and fast
// tests have real tokens to verify and fetch without an external server or
// a container. It signs with keys made at start, trusts the clients
// registered with it, signs whatever /mint is asked and keeps everything
// in memory: never use it where a real issuer is configured, and never
// expose it (Start refuses an address that is not loopback unless
// Options.AnyAddressForDevelopment says otherwise).
//
// The same server runs as a command, printing the settings to paste:
//
//	go run github.com/svckit/svc/cmd/devissuer -addr 127.0.0.1:9000 -scopes "read write"
//
// and in-process, in a test or a service's own development mode:
//
//	iss, err := devissuer.Start(devissuer.Options{Audience: "orders"})
//	defer iss.Close()
//	tok, err := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
//
// One process serves several issuers, each with its own keys, clients,
// tokens and audience: [Issuer.Another] adds one at a path, and
// [Issuer.Tenant] one shaped as a tenant of [Issuer.TenantTemplate]
// (/{tenant}/v2.0).
package devissuer

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
)

// ErrNotLoopback is Start's refusal of an address that is not loopback
// without Options.AnyAddressForDevelopment.
var ErrNotLoopback = errors.New("not on loopback (127.0.0.1, ::1 or localhost): this issuer signs whatever it is asked and must never be reachable from elsewhere (Options.AnyAddressForDevelopment overrides this, for development only)")

// Issuer is one running development issuer.
type Issuer struct {
	// URL is the issuer identifier: http://127.0.0.1:PORT, followed by
	// its path for an issuer made by Another or Tenant.
	URL string
	// Audience is the `aud` of the tokens it mints by default.
	Audience string
	// ClientID and ClientSecret are the client registered at start
	// (client_secret_basic or client_secret_post).
	ClientID, ClientSecret string

	srv    *server
	path   string // the issuer's path on the server: "" for the first
	tenant string // the `tid` of its tokens, for a Tenant

	mu            sync.RWMutex
	keys          []signingKey // keys[0] signs; all are published
	clients       map[string]*Client
	tokens        *tokenStore
	codes         map[string]*authCode
	tokenRequests int
}

// Options configure an Issuer; zero values take the defaults.
type Options struct {
	// Addr is where to listen: default 127.0.0.1:0 (a free port). Start
	// refuses an address that is not loopback, unless
	// AnyAddressForDevelopment is set.
	Addr string
	// AnyAddressForDevelopment lets Addr be any address, e.g. for a
	// container on a development machine. The server signs whatever it is
	// asked: never set it where the address is reachable by anyone else.
	AnyAddressForDevelopment bool
	Audience                 string // default "svc-example"
	ClientID                 string // default "example-client"
	ClientSecret             string // default "example-secret"
	// DPoPNonce makes the token endpoint require a DPoP nonce (RFC 9449
	// §8): a proof without the current one is answered use_dpop_nonce
	// with a DPoP-Nonce header.
	DPoPNonce bool
}

// Start listens on loopback and serves the issuer: discovery at
// /.well-known/openid-configuration and /.well-known/oauth-authorization-server,
// /jwks, /token, /mint, /introspect, /revoke, /authorize and /rotate, and
// an https alias of the token, introspection and revocation endpoints for
// clients presenting a certificate (mtls_endpoint_aliases). Close stops
// it. It refuses an Addr that is not host:port, and one that is not
// loopback unless AnyAddressForDevelopment is set.
func Start(opts Options) (*Issuer, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("devissuer: address %q is not host:port (%v): write it as 127.0.0.1:9000, or 127.0.0.1:0 for a free port", opts.Addr, err)
	}
	if ip := net.ParseIP(host); !opts.AnyAddressForDevelopment && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("devissuer: address %q: %w", opts.Addr, ErrNotLoopback)
	}
	srv, err := startServer(opts)
	if err != nil {
		return nil, err
	}
	iss, err := srv.add("", "", opts)
	if err != nil {
		srv.close()
		return nil, err
	}
	return iss, nil
}

// Another adds an issuer at path on the same server ("/partner" makes
// http://127.0.0.1:PORT/partner), with its own keys, clients, tokens and
// opts.Audience, opts.ClientID and opts.ClientSecret (opts.Addr must be
// empty). It refuses a path already in use, and one that is not "/" and
// letters, digits, '-', '.', '_' and '/'.
func (i *Issuer) Another(path string, opts Options) (*Issuer, error) {
	if opts.Addr != "" || opts.AnyAddressForDevelopment {
		return nil, fmt.Errorf("devissuer: Another(%q): an issuer added to a server listens on its address; leave Options.Addr empty", path)
	}
	if !validPath(path) {
		return nil, fmt.Errorf("devissuer: Another(%q): the path must start with '/' and hold only letters, digits, '-', '.', '_' and '/'", path)
	}
	return i.srv.add(i.path+path, "", opts)
}

// TenantTemplate is the issuer template whose tenants [Issuer.Tenant]
// makes, as bearer.Tenants and bearer.AnyTenant take it:
// http://127.0.0.1:PORT/{tenantid}/v2.0.
func (i *Issuer) TenantTemplate() string {
	return i.srv.base + i.path + "/{tenantid}/v2.0"
}

// Tenant returns the issuer of tenant id at /{id}/v2.0, made at its first
// call with its own keys, the options of i and the `tid` claim id in
// every token, as a multi-tenant provider's tokens carry. It refuses an id
// that is not 1 to 64 letters, digits, '-', '.' or '_'.
func (i *Issuer) Tenant(id string) (*Issuer, error) {
	if id == "" || len(id) > 64 || strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") != "" {
		return nil, fmt.Errorf("devissuer: Tenant(%q): a tenant is 1 to 64 letters, digits, '-', '.' or '_'", id)
	}
	path := i.path + "/" + id + "/v2.0"
	if t := i.srv.lookup(path); t != nil {
		return t, nil
	}
	return i.srv.add(path, id, Options{Audience: i.Audience, ClientID: i.ClientID, ClientSecret: i.ClientSecret})
}

// Close stops the server of i, and with it every issuer on it.
func (i *Issuer) Close() error { return i.srv.close() }

// TokenRequests counts the token endpoint's requests.
func (i *Issuer) TokenRequests() int {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.tokenRequests
}

func validPath(p string) bool {
	return len(p) > 1 && p[0] == '/' && !strings.HasSuffix(p, "/") && !strings.Contains(p, "//") &&
		strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._/") == "" &&
		!strings.Contains(p, "/.") // no "." or ".." segment, no /.well-known
}

func withDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}
