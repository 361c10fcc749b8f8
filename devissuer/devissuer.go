// Package devissuer is a DEVELOPMENT-ONLY OpenID Connect issuer on
// loopback: discovery, a JWKS, a token endpoint (client credentials and
// token exchange) and a /mint endpoint that signs a token for any subject
// and scopes asked. It exists so that a service under development, `make
// run` and fast tests have real tokens to verify and fetch without an
// external server. It signs with a key made at start, trusts any client
// that knows the one configured secret, and keeps nothing: never use it
// where an issuer is configured, and never expose it (Start refuses an
// address that is not loopback).
//
// The same issuer runs as a command, printing the settings to paste:
//
//	go run github.com/svckit/svc/cmd/devissuer -addr 127.0.0.1:9000 -scopes "read write"
//
// and in-process, in a test or a service's own development mode:
//
//	iss, err := devissuer.Start(devissuer.Options{Audience: "orders"})
//	defer iss.Close()
//	tok, err := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
package devissuer

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Issuer is a running development issuer.
type Issuer struct {
	// URL is the issuer identifier, http://127.0.0.1:PORT.
	URL string
	// Audience is the `aud` of the tokens it mints by default.
	Audience string
	// ClientID and ClientSecret are the one client its token endpoint knows.
	ClientID, ClientSecret string

	srv *http.Server
	ln  net.Listener

	mu     sync.RWMutex
	key    *ecdsa.PrivateKey
	kid    string
	public []jose.JSONWebKey

	tokenRequests int
}

// Options configure an Issuer; zero values take the defaults.
type Options struct {
	Addr         string // default 127.0.0.1:0 (a free port); loopback only
	Audience     string // default "svc-example"
	ClientID     string // default "example-client"
	ClientSecret string // default "example-secret"
}

// Start listens on loopback and serves discovery, the JWKS, a token
// endpoint (form-encoded, client_secret_basic or client_secret_post;
// grant types client_credentials and RFC 8693 token exchange) and GET
// /mint?sub=alice&scope=read+write (&aud=, &ttl=30m) answering a signed
// token as the token endpoint does. Close stops it. It refuses an Addr
// that is not a loopback address.
func Start(opts Options) (*Issuer, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("devissuer: address %q is not host:port (%v): write it as 127.0.0.1:9000, or 127.0.0.1:0 for a free port", opts.Addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("devissuer: address %q is not on loopback (127.0.0.1, ::1 or localhost): this issuer signs whatever it is asked and must never be reachable from elsewhere", opts.Addr)
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("devissuer: listen: %w", err)
	}
	iss := &Issuer{
		URL:          "http://" + ln.Addr().String(),
		Audience:     withDefault(opts.Audience, "svc-example"),
		ClientID:     withDefault(opts.ClientID, "example-client"),
		ClientSecret: withDefault(opts.ClientSecret, "example-secret"),
		ln:           ln,
	}
	if err := iss.newKey(); err != nil {
		ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", iss.discovery)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", iss.discovery)
	mux.HandleFunc("GET /jwks", iss.jwks)
	mux.HandleFunc("POST /token", iss.token)
	mux.HandleFunc("GET /mint", iss.mint)
	iss.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = iss.srv.Serve(ln) }()
	return iss, nil
}

func withDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// Close stops the issuer.
func (i *Issuer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return i.srv.Shutdown(ctx)
}

// newKey makes the signing key and the JWKS that publishes it.
func (i *Issuer) newKey() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("devissuer: key: %w", err)
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	kid := "dev-" + hex.EncodeToString(id[:])
	i.mu.Lock()
	defer i.mu.Unlock()
	i.public = []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: kid, Algorithm: "ES256", Use: "sig"}}
	i.key, i.kid = key, kid
	return nil
}

// Token is what Mint puts in a token beyond the defaults.
type Token struct {
	Subject  string
	Audience string        // default the issuer's Audience
	Scopes   []string      // the `scope` claim, space-separated
	TTL      time.Duration // default 1h
	Extra    map[string]any
}

// Mint signs an ES256 JWT access token.
func (i *Issuer) Mint(t Token) (string, error) {
	i.mu.RLock()
	key, kid := i.key, i.kid
	i.mu.RUnlock()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	if err != nil {
		return "", fmt.Errorf("devissuer: signer: %w", err)
	}
	if t.TTL <= 0 {
		t.TTL = time.Hour
	}
	now := time.Now()
	var jti [12]byte
	_, _ = rand.Read(jti[:])
	claims := map[string]any{
		"iss": i.URL,
		"sub": t.Subject,
		"aud": withDefault(t.Audience, i.Audience),
		"iat": now.Unix(),
		"exp": now.Add(t.TTL).Unix(),
		"jti": hex.EncodeToString(jti[:]),
	}
	if len(t.Scopes) > 0 {
		claims["scope"] = strings.Join(t.Scopes, " ")
	}
	for k, v := range t.Extra {
		claims[k] = v
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}

// TokenRequests counts the token endpoint's requests.
func (i *Issuer) TokenRequests() int {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.tokenRequests
}

func (i *Issuer) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                i.URL,
		"jwks_uri":                              i.URL + "/jwks",
		"token_endpoint":                        i.URL + "/token",
		"grant_types_supported":                 []string{"client_credentials", grantTokenExchange},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"id_token_signing_alg_values_supported": []string{"ES256"},
		"response_types_supported":              []string{"token"},
		"subject_types_supported":               []string{"public"},
	})
}

func (i *Issuer) jwks(w http.ResponseWriter, _ *http.Request) {
	i.mu.RLock()
	set := jose.JSONWebKeySet{Keys: append([]jose.JSONWebKey(nil), i.public...)}
	i.mu.RUnlock()
	writeJSON(w, http.StatusOK, set)
}
