// Package authntest is a test kit for services that verify tokens with
// modules/authn: an OpenID Connect issuer on a loopback httptest server that
// mints real signed access tokens, a verifier already pointed at it, and
// helpers for handler tests that need no issuer at all.
//
// It is for tests only: the keys are made per issuer, nothing is kept, and
// nothing here is linked into a binary that does not import it.
//
// What it is for, beside package devissuer: authntest shapes tokens a real
// issuer would never sign (a wrong alg, a missing exp, a forged header,
// another key) to test a verifier's refusals, and tests handlers with no
// issuer at all. devissuer is a whole authorization server (token
// endpoint, DPoP and certificate binding, introspection, revocation, token
// exchange, several issuers): use it when a test, `make run` or a
// service's development mode needs the tokens a real provider issues.
//
//	iss := authntest.NewIssuer(t)
//	tok := iss.Token(authntest.Subject("alice"), authntest.Scopes("read"))
//	v := iss.Verifier()                       // opened, keys loaded, closed at cleanup
//	p, err := v.Verify(ctx, tok)
package authntest

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/svckit/svc/modules/authn/bearer"
)

// defaultAudience is the `aud` of the tokens an Issuer mints unless told
// otherwise, and the audience its Verifier expects.
const defaultAudience = "https://api.test.example"

// Issuer is a running test issuer: discovery (OIDC and RFC 8414), a JWK Set
// and nothing else. Build it with NewIssuer; it stops at the test's cleanup.
type Issuer struct {
	// URL is the issuer identifier, http://127.0.0.1:PORT.
	URL string
	// Audience is the default `aud` of minted tokens.
	Audience string

	t       testing.TB
	srv     *httptest.Server
	alg     jose.SignatureAlgorithm
	fetches atomic.Int64

	mu     sync.RWMutex
	signer signingKey
	public []jose.JSONWebKey
}

type signingKey struct {
	key crypto.Signer
	kid string
}

// IssuerOption configures NewIssuer.
type IssuerOption func(*issuerConfig)

type issuerConfig struct {
	alg      jose.SignatureAlgorithm
	audience string
}

// Algorithm chooses the signing algorithm: "ES256" (the default), "RS256",
// "PS256" or "EdDSA". Any other name fails the test.
func Algorithm(name string) IssuerOption {
	return func(c *issuerConfig) { c.alg = jose.SignatureAlgorithm(name) }
}

// WithAudience sets the default `aud` of minted tokens and the audience of
// the issuer's Verifier (default https://api.test.example).
func WithAudience(aud string) IssuerOption {
	return func(c *issuerConfig) { c.audience = aud }
}

// NewIssuer starts an issuer on loopback and stops it when the test ends.
func NewIssuer(t testing.TB, opts ...IssuerOption) *Issuer {
	t.Helper()
	cfg := issuerConfig{alg: jose.ES256, audience: defaultAudience}
	for _, o := range opts {
		o(&cfg)
	}
	switch cfg.alg {
	case jose.ES256, jose.RS256, jose.PS256, jose.EdDSA:
	default:
		t.Fatalf("authntest: algorithm %q is not one of ES256, RS256, PS256, EdDSA", cfg.alg)
	}
	iss := &Issuer{t: t, alg: cfg.alg, Audience: cfg.audience}
	iss.Rotate(false)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", iss.discovery)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", iss.discovery)
	mux.HandleFunc("GET /jwks", iss.jwks)
	iss.srv = httptest.NewServer(mux)
	iss.URL = iss.srv.URL
	t.Cleanup(iss.srv.Close)
	return iss
}

// Rotate signs with a new key from now on. With keepOld the JWK Set still
// publishes the previous keys (a rotation in progress); without it they are
// gone (tokens they signed no longer verify once a verifier refreshes).
func (i *Issuer) Rotate(keepOld bool) {
	i.t.Helper()
	key, err := newKey(i.alg)
	if err != nil {
		i.t.Fatalf("authntest: %v", err)
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	kid := "test-" + hex.EncodeToString(id[:])
	pub := jose.JSONWebKey{Key: key.Public(), KeyID: kid, Algorithm: string(i.alg), Use: "sig"}
	i.mu.Lock()
	defer i.mu.Unlock()
	if keepOld {
		i.public = append([]jose.JSONWebKey{pub}, i.public...)
	} else {
		i.public = []jose.JSONWebKey{pub}
	}
	i.signer = signingKey{key: key, kid: kid}
}

func newKey(alg jose.SignatureAlgorithm) (crypto.Signer, error) {
	switch alg {
	case jose.RS256, jose.PS256:
		return rsa.GenerateKey(rand.Reader, 2048)
	case jose.EdDSA:
		_, k, err := ed25519.GenerateKey(rand.Reader)
		return k, err
	}
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

// KeyFetches counts the requests for the JWK Set: a test can see that a
// verifier fetched once, or refreshed after Rotate.
func (i *Issuer) KeyFetches() int { return int(i.fetches.Load()) }

// Discover returns a verifier for this issuer, not yet opened: hand it to
// fxsvc.Authn (the app opens and closes it) or open it yourself for authn.New. Its
// audience is the issuer's Audience unless opts say otherwise through
// WithAudience on the issuer.
func (i *Issuer) Discover(opts ...bearer.VerifierOption) *bearer.JWTVerifier {
	return bearer.New(i.URL, i.Audience, opts...)
}

// Verifier returns a verifier for this issuer, opened and holding its keys;
// it closes at the test's cleanup. The test fails when keys do not arrive
// within 10 seconds.
func (i *Issuer) Verifier(opts ...bearer.VerifierOption) *bearer.JWTVerifier {
	i.t.Helper()
	v := i.Discover(opts...)
	if err := v.Open(context.Background()); err != nil {
		i.t.Fatalf("authntest: open verifier: %v", err)
	}
	i.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = v.Close(ctx)
	})
	if err := WaitReady(v, 10*time.Second); err != nil {
		i.t.Fatalf("authntest: %v", err)
	}
	return v
}

// WaitReady waits until v holds keys (v.Ready returns nil), up to timeout,
// and returns the last readiness error when it does not.
func WaitReady(v interface{ Ready() error }, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := v.Ready()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("verifier not ready after %v: %w", timeout, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (i *Issuer) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{
		"issuer":                                i.URL,
		"jwks_uri":                              i.URL + "/jwks",
		"id_token_signing_alg_values_supported": []string{string(i.alg)},
		"response_types_supported":              []string{"token"},
		"subject_types_supported":               []string{"public"},
	})
}

func (i *Issuer) jwks(w http.ResponseWriter, _ *http.Request) {
	i.fetches.Add(1)
	i.mu.RLock()
	set := jose.JSONWebKeySet{Keys: append([]jose.JSONWebKey(nil), i.public...)}
	i.mu.RUnlock()
	writeJSON(w, set)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}

// Token mints a signed access token (typ at+jwt, RFC 9068) with `iss`,
// `aud`, `sub` "test-subject", `iat`, `exp` one hour ahead and a random
// `jti`, changed by opts. The test fails if signing fails.
func (i *Issuer) Token(opts ...TokenOption) string {
	i.t.Helper()
	now := time.Now()
	var jti [12]byte
	_, _ = rand.Read(jti[:])
	tc := tokenConfig{claims: map[string]any{
		"iss": i.URL,
		"sub": "test-subject",
		"aud": i.Audience,
		"iat": now.Unix(),
		"exp": now.Add(time.Hour).Unix(),
		"jti": hex.EncodeToString(jti[:]),
	}, typ: "at+jwt"}
	for _, o := range opts {
		o(&tc)
	}
	i.mu.RLock()
	sk := i.signer
	i.mu.RUnlock()
	so := (&jose.SignerOptions{}).WithHeader("kid", sk.kid)
	if tc.typ != "" {
		so = so.WithType(jose.ContentType(tc.typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: i.alg, Key: sk.key}, so)
	if err != nil {
		i.t.Fatalf("authntest: signer: %v", err)
	}
	tok, err := jwt.Signed(signer).Claims(tc.claims).Serialize()
	if err != nil {
		i.t.Fatalf("authntest: sign: %v", err)
	}
	return tok
}

// TokenOption changes what Token puts in a token.
type TokenOption func(*tokenConfig)

type tokenConfig struct {
	claims map[string]any
	typ    string
}

// Subject sets `sub`.
func Subject(sub string) TokenOption { return func(c *tokenConfig) { c.claims["sub"] = sub } }

// Scopes sets `scope`, space-separated (RFC 8693 §4.2).
func Scopes(scopes ...string) TokenOption {
	return func(c *tokenConfig) { c.claims["scope"] = strings.Join(scopes, " ") }
}

// Audience sets `aud`: one value as a string, several as an array.
func Audience(aud ...string) TokenOption {
	return func(c *tokenConfig) {
		if len(aud) == 1 {
			c.claims["aud"] = aud[0]
		} else {
			c.claims["aud"] = aud
		}
	}
}

// Expires sets `exp`; a time in the past mints an expired token.
func Expires(at time.Time) TokenOption {
	return func(c *tokenConfig) { c.claims["exp"] = at.Unix() }
}

// NotBefore sets `nbf`.
func NotBefore(at time.Time) TokenOption {
	return func(c *tokenConfig) { c.claims["nbf"] = at.Unix() }
}

// Claim sets any claim, registered ones included; a nil value removes it
// (e.g. Claim("exp", nil) mints a token the verifier refuses).
func Claim(name string, value any) TokenOption {
	return func(c *tokenConfig) {
		if value == nil {
			delete(c.claims, name)
			return
		}
		c.claims[name] = value
	}
}

// Type sets the `typ` header ("" leaves it out); the default is at+jwt.
func Type(typ string) TokenOption { return func(c *tokenConfig) { c.typ = typ } }
