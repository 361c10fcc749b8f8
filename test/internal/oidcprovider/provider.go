package oidcprovider

import (
	"crypto/rand"
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
}

func buildConfig(opts Options) (serverConfig, error) {
	cfg := serverConfig{
		Resource:         opts.Resource,
		ResourceScope:    opts.ResourceScope,
		SigningAlg:       opts.SigningAlg,
		JWTIntrospection: opts.JWTIntrospection,
		DPoPNonce:        opts.DPoPNonce,
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
		meta, err := clientMetadata(c)
		if err != nil {
			return cfg, err
		}
		cfg.Clients = append(cfg.Clients, meta)
	}
	return cfg, nil
}

// clientMetadata turns c into oidc-provider's (RFC 7591) client metadata.
func clientMetadata(c Client) (map[string]any, error) {
	method := c.AuthMethod
	if method == "" {
		method = "client_secret_basic"
		if len(c.JWKS) > 0 {
			method = "private_key_jwt"
		}
	}
	if !slices.Contains(authMethods, method) {
		return nil, fmt.Errorf("client %q: AuthMethod %q: want one of %s", c.ID, method, strings.Join(authMethods, ", "))
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
	switch method {
	case "private_key_jwt":
		if len(c.JWKS) == 0 {
			return nil, fmt.Errorf("client %q: private_key_jwt needs Client.JWKS", c.ID)
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
