package oidcprovider

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Grant types and token types the provider understands.
const (
	GrantClientCredentials = "client_credentials"
	GrantTokenExchange     = "urn:ietf:params:oauth:grant-type:token-exchange"
	TokenTypeAccessToken   = "urn:ietf:params:oauth:token-type:access_token"
	TokenTypeJWT           = "urn:ietf:params:oauth:token-type:jwt"
)

// The built-in client every provider registers (client_secret_basic, both grants, scope
// "read write admin"); Token uses it.
const (
	DefaultClientID     = "svc-test-client"
	DefaultClientSecret = "svc-test-secret"
)

// DefaultResource is the resource (JWT audience) tokens are issued for unless a request names
// another one.
const DefaultResource = "https://api.svc.test"

const defaultScope = "read write admin"

// Options configure Start. The zero value is a provider with only the default client.
type Options struct {
	// Clients are registered besides the default client. Start refuses duplicate IDs and
	// unknown auth methods.
	Clients []Client
	// AccessTokenTTL is the lifetime of every access token, rounded up to whole seconds;
	// default 10m. Short values (1s) make refresh tests quick.
	AccessTokenTTL time.Duration
	// Resource is the default resource (audience) and Provider.Resource; default
	// DefaultResource.
	Resource string
	// Resources, when set, are the only resources (besides Resource) a request may name with
	// `resource=` or `audience=`; others get invalid_target. When empty any absolute URI is a
	// resource whose audience is itself.
	Resources []string
	// ResourceScope is what every resource offers; requested scopes outside it are dropped from
	// the token. Default "read write admin".
	ResourceScope string
	// SigningAlg signs access tokens: "ES256" (default) or "RS256". Keys of both kinds are
	// always published.
	SigningAlg string
	// JWTIntrospection turns on RFC 9701: the introspection endpoint answers a client that
	// sends Accept: application/token-introspection+jwt with a JWT signed RS256 by the
	// provider's key. Off, it answers plain JSON whatever the client asks.
	JWTIntrospection bool
	// DPoPNonce makes the token endpoint require a server nonce in DPoP proofs (RFC 9449 §8):
	// a proof without the current one is answered 400 use_dpop_nonce with a DPoP-Nonce header.
	// DPoP itself is always on: a token request with a proof gets a token bound to its key
	// (token_type DPoP, cnf.jkt).
	DPoPNonce bool
	// MTLS adds a second listener, https on 127.0.0.1 with a server certificate made at Start
	// (Provider.MTLSRoots trusts it), that requests client certificates (RFC 8705). Discovery
	// publishes its token endpoint as mtls_endpoint_aliases.token_endpoint; there
	// tls_client_auth (a certificate chaining to ClientCA, whose subject is the client's
	// SubjectDN) and self_signed_tls_client_auth (a certificate in the client's JWKS x5c) are
	// accepted, and a CertificateBound client's tokens are bound to the certificate presented
	// (cnf.x5t#S256).
	MTLS bool
	// ClientCA is the PEM certificate of the CA tls_client_auth certificates chain to.
	ClientCA []byte
}

// Client is a client registration.
type Client struct {
	ID string
	// Secret is for client_secret_basic, client_secret_post and client_secret_jwt.
	Secret string
	// AuthMethod is "client_secret_basic", "client_secret_post", "client_secret_jwt" or
	// "private_key_jwt"; default private_key_jwt when JWKS is set, else client_secret_basic.
	AuthMethod string
	// JWKS is the client's public JWK Set, for private_key_jwt.
	JWKS json.RawMessage
	// GrantTypes default to client_credentials and token exchange.
	GrantTypes []string
	// Scope is the space-separated allow list; default "read write admin". Asking for a scope
	// outside it answers invalid_scope.
	Scope string
	// OpaqueAccessTokens makes the client's access tokens opaque (oidc-provider's random
	// strings, for RFC 7662 introspection) instead of JWTs, for every resource.
	OpaqueAccessTokens bool
	// SubjectDN is the tls_client_auth_subject_dn of a tls_client_auth client, in the form
	// Node.js prints a subject ("CN=name" for a single-name subject).
	SubjectDN string
	// CertificateBound asks for tokens bound to the client certificate
	// (tls_client_certificate_bound_access_tokens); a token request without one is refused.
	CertificateBound bool
}

// Provider is a running oidc-provider. Its methods may be called from any goroutine.
type Provider struct {
	Issuer        string // http://127.0.0.1:PORT
	Resource      string // the audience of JWT access tokens, e.g. "https://api.svc.test"
	TokenEndpoint string // from the discovery document
	JWKSURI       string // from the discovery document
	// IntrospectionEndpoint is the RFC 7662 endpoint, from the discovery document.
	IntrospectionEndpoint string
	ClientID              string // DefaultClientID
	ClientSecret          string // DefaultClientSecret
	// MTLSTokenEndpoint is the token endpoint on the mutual-TLS listener (Options.MTLS), as
	// discovery's mtls_endpoint_aliases names it; MTLSRoots trusts that listener's certificate.
	MTLSTokenEndpoint string
	MTLSRoots         *x509.CertPool

	tb         reporter
	adminToken string
	client     *http.Client
}

// reporter is the part of testing.TB the Provider keeps for methods without a TB argument.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

var authMethods = []string{"client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt"}

// mtlsAuthMethods are accepted besides authMethods with Options.MTLS.
var mtlsAuthMethods = []string{"tls_client_auth", "self_signed_tls_client_auth"}

// serverConfig is what server.mjs reads.
type serverConfig struct {
	AdminToken       string           `json:"adminToken"`
	Resource         string           `json:"resource"`
	Resources        []string         `json:"resources,omitempty"`
	ResourceScope    string           `json:"resourceScope"`
	AccessTokenTTL   int64            `json:"accessTokenTTL"`
	SigningAlg       string           `json:"signingAlg"`
	Clients          []map[string]any `json:"clients"`
	JWTIntrospection bool             `json:"jwtIntrospection,omitempty"`
	DPoPNonce        bool             `json:"dpopNonce,omitempty"`
	// OpaqueClients get opaque access tokens.
	OpaqueClients []string `json:"opaqueClients,omitempty"`
	// MTLS configures the mutual-TLS listener.
	MTLS *mtlsConfig `json:"mtls,omitempty"`
}

// mtlsConfig is the mutual-TLS listener's PEM certificate and key, and the CA its
// tls_client_auth clients chain to.
type mtlsConfig struct {
	Cert string `json:"cert"`
	Key  string `json:"key"`
	CA   string `json:"ca"`
}

func buildConfig(opts Options) (serverConfig, error) {
	cfg := serverConfig{
		Resource:         opts.Resource,
		ResourceScope:    opts.ResourceScope,
		SigningAlg:       opts.SigningAlg,
		JWTIntrospection: opts.JWTIntrospection,
		DPoPNonce:        opts.DPoPNonce,
	}
	if opts.MTLS {
		m, err := newMTLSConfig(opts.ClientCA)
		if err != nil {
			return cfg, err
		}
		cfg.MTLS = m
	}
	if cfg.Resource == "" {
		cfg.Resource = DefaultResource
	}
	if len(opts.Resources) > 0 {
		cfg.Resources = append([]string{cfg.Resource}, opts.Resources...)
	}
	if cfg.ResourceScope == "" {
		cfg.ResourceScope = defaultScope
	}
	switch cfg.SigningAlg {
	case "":
		cfg.SigningAlg = "ES256"
	case "ES256", "RS256":
	default:
		return cfg, fmt.Errorf("Options.SigningAlg %q: want ES256 or RS256", opts.SigningAlg)
	}
	ttl := opts.AccessTokenTTL
	if ttl <= 0 {
		ttl = 10 * time.Minute
	}
	cfg.AccessTokenTTL = int64((ttl + time.Second - 1) / time.Second)

	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return cfg, err
	}
	cfg.AdminToken = hex.EncodeToString(token)

	clients := append([]Client{{ID: DefaultClientID, Secret: DefaultClientSecret}}, opts.Clients...)
	seen := map[string]bool{}
	for _, c := range clients {
		if c.ID == "" || seen[c.ID] {
			return cfg, fmt.Errorf("Options.Clients: client ID %q is empty or used twice", c.ID)
		}
		seen[c.ID] = true
		if c.OpaqueAccessTokens {
			cfg.OpaqueClients = append(cfg.OpaqueClients, c.ID)
		}
		meta, err := clientMetadata(c, opts.MTLS)
		if err != nil {
			return cfg, err
		}
		cfg.Clients = append(cfg.Clients, meta)
	}
	return cfg, nil
}

// clientMetadata turns c into oidc-provider's (RFC 7591) client metadata.
func clientMetadata(c Client, mtls bool) (map[string]any, error) {
	method := c.AuthMethod
	if method == "" {
		method = "client_secret_basic"
		if len(c.JWKS) > 0 {
			method = "private_key_jwt"
		}
	}
	if slices.Contains(mtlsAuthMethods, method) && !mtls {
		return nil, fmt.Errorf("client %q: AuthMethod %q needs Options.MTLS", c.ID, method)
	}
	if !slices.Contains(authMethods, method) && !slices.Contains(mtlsAuthMethods, method) {
		return nil, fmt.Errorf("client %q: AuthMethod %q: want one of %s", c.ID, method, strings.Join(append(authMethods, mtlsAuthMethods...), ", "))
	}
	grants := c.GrantTypes
	if len(grants) == 0 {
		grants = []string{GrantClientCredentials, GrantTokenExchange}
	}
	scope := c.Scope
	if scope == "" {
		scope = defaultScope
	}
	meta := map[string]any{
		"client_id":                  c.ID,
		"token_endpoint_auth_method": method,
		"grant_types":                grants,
		"scope":                      scope,
		"redirect_uris":              []string{},
		"response_types":             []string{},
	}
	if c.CertificateBound {
		meta["tls_client_certificate_bound_access_tokens"] = true
	}
	switch method {
	case "tls_client_auth":
		if c.SubjectDN == "" {
			return nil, fmt.Errorf("client %q: tls_client_auth needs Client.SubjectDN", c.ID)
		}
		meta["tls_client_auth_subject_dn"] = c.SubjectDN
	case "private_key_jwt", "self_signed_tls_client_auth":
		if len(c.JWKS) == 0 {
			return nil, fmt.Errorf("client %q: %s needs Client.JWKS", c.ID, method)
		}
		var jwks map[string]any
		if err := json.Unmarshal(c.JWKS, &jwks); err != nil {
			return nil, fmt.Errorf("client %q: Client.JWKS is not a JWK Set: %w", c.ID, err)
		}
		meta["jwks"] = jwks
	default:
		if c.Secret == "" {
			return nil, fmt.Errorf("client %q: %s needs Client.Secret", c.ID, method)
		}
		meta["client_secret"] = c.Secret
	}
	return meta, nil
}

// serverDir is the directory holding server.mjs and node_modules.
func serverDir() (string, error) {
	if d := os.Getenv("SVC_OIDCPROVIDER_DIR"); d != "" {
		return d, nil
	}
	if d := sourceDir(); d != "" {
		if _, err := os.Stat(filepath.Join(d, "server.mjs")); err == nil {
			return d, nil
		}
	}
	// Built with -trimpath: find the module root above the working directory.
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "test", "internal", "oidcprovider", "server.mjs")); err == nil {
			return filepath.Join(d, "test", "internal", "oidcprovider"), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("test/internal/oidcprovider/server.mjs not found above %s; set SVC_OIDCPROVIDER_DIR", wd)
		}
	}
}
