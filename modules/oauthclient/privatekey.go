package oauthclient

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"net/http"
	"net/url"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// jwtBearerAssertion is the client_assertion_type of RFC 7523.
const jwtBearerAssertion = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// assertionTyp is the typ header RFC 7523bis gives client assertions whose
// audience is the issuer.
const assertionTyp = "client-authentication+jwt"

// assertionLifetime is how long a signed client assertion is valid.
const assertionLifetime = time.Minute

// PrivateKeyOption configures [PrivateKey].
type PrivateKeyOption interface {
	applyKey(*keyAuth) error
}

// keyAudience chooses the aud claim of signed client assertions. The
// default, audienceIssuer, sets aud to the issuer and the typ header to
// client-authentication+jwt, as RFC 7523bis asks.
type keyAudience int

const (
	audienceIssuer keyAudience = iota
	// AudienceTokenEndpoint, passed to [PrivateKey], sets aud to the token
	// endpoint and sends no typ header: the older form some servers (Ory
	// Hydra) require.
	AudienceTokenEndpoint
)

func (a keyAudience) applyKey(k *keyAuth) error {
	k.audience = a
	return nil
}

type keyOption func(*keyAuth) error

func (f keyOption) applyKey(k *keyAuth) error { return f(k) }

// KeyID sets the kid header, for servers that pick the client's key by it.
func KeyID(kid string) PrivateKeyOption {
	return keyOption(func(k *keyAuth) error { k.kid = kid; return nil })
}

// SigningAlgorithm overrides the algorithm chosen from the key (RS256 for
// RSA, ES256/ES384/ES512 by curve, EdDSA for Ed25519), e.g. "PS256". An
// algorithm the key cannot sign with is refused.
func SigningAlgorithm(alg string) PrivateKeyOption {
	return keyOption(func(k *keyAuth) error { k.alg = jose.SignatureAlgorithm(alg); return nil })
}

// Certificate adds the x5t#S256 header (the SHA-256 thumbprint of the
// certificate) for servers that bind the client to a certificate. The
// certificate is read from PEM and must hold the private key's public key.
// No SHA-1 x5t is ever sent.
func Certificate(certPEM []byte) PrivateKeyOption {
	return keyOption(func(k *keyAuth) error {
		block, _ := pem.Decode(certPEM)
		if block == nil || block.Type != "CERTIFICATE" {
			return &ConfigError{Setting: "oauthclient.Certificate", Problem: "no PEM CERTIFICATE block found"}
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return &ConfigError{Setting: "oauthclient.Certificate", Problem: "the certificate does not parse"}
		}
		k.cert = cert
		return nil
	})
}

// PrivateKey authenticates with a client assertion (private_key_jwt, RFC
// 7523) signed by the key in keyPEM: PKCS#8, PKCS#1 (RSA) or SEC 1 (EC), in
// PEM only. Every token request gets a fresh assertion that lives one
// minute and carries a fresh random jti; assertions are never cached or
// reused.
//
// By default the assertion's audience is the issuer with typ
// client-authentication+jwt (RFC 7523bis), so an issuer must be configured;
// pass [AudienceTokenEndpoint] for the older form.
//
// A bad key fails New, not the first fetch: encrypted PEM (refused with an
// error that says so; decrypt it first), a block that is not a private key,
// RSA under 2048 bits, an unsupported curve, an algorithm the key cannot
// sign with, or a certificate for another key.
func PrivateKey(keyPEM []byte, opts ...PrivateKeyOption) ClientAuth {
	k := &keyAuth{}
	k.err = k.init(keyPEM, opts)
	return k
}

type keyAuth struct {
	audience keyAudience
	kid      string
	alg      jose.SignatureAlgorithm
	cert     *x509.Certificate
	signer   jose.Signer
	err      error
}

func (k *keyAuth) applyClient(c *clientConfig) error {
	if k.err != nil {
		return k.err
	}
	c.auth = k
	return nil
}

func (k *keyAuth) init(keyPEM []byte, opts []PrivateKeyOption) error {
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.applyKey(k); err != nil {
			return err
		}
	}
	priv, err := parsePrivateKey(keyPEM)
	if err != nil {
		return err
	}
	if k.alg, err = chooseAlgorithm(priv.Public(), k.alg, "oauthclient.SigningAlgorithm"); err != nil {
		return err
	}
	so := &jose.SignerOptions{}
	if k.audience == audienceIssuer {
		so = so.WithType(assertionTyp)
	}
	if k.cert != nil {
		pub, ok := priv.Public().(interface{ Equal(crypto.PublicKey) bool })
		if !ok || !pub.Equal(k.cert.PublicKey) {
			return &ConfigError{Setting: "oauthclient.Certificate", Problem: "the certificate is for another key than oauthclient.PrivateKey's"}
		}
		sum := sha256.Sum256(k.cert.Raw)
		so = so.WithHeader("x5t#S256", base64.RawURLEncoding.EncodeToString(sum[:]))
	}
	jwk := jose.JSONWebKey{Key: priv, KeyID: k.kid, Algorithm: string(k.alg)}
	k.signer, err = jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: jwk}, so)
	if err != nil {
		return &ConfigError{Setting: "oauthclient.PrivateKey", Problem: "the key cannot sign " + string(k.alg)}
	}
	return nil
}

// parsePrivateKey reads one PEM private key. Its errors never repeat key
// material.
func parsePrivateKey(data []byte) (crypto.Signer, error) {
	bad := func(problem string) error {
		return &ConfigError{Setting: "oauthclient.PrivateKey", Problem: problem}
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, bad("no PEM block found (the key is read from PEM only)")
	}
	if block.Type == "ENCRYPTED PRIVATE KEY" || strings.Contains(block.Headers["Proc-Type"], "ENCRYPTED") {
		return nil, bad("the PEM key is encrypted; svc reads no passphrase: decrypt the key and keep it in a secret store instead")
	}
	var (
		key any
		err error
	)
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		return nil, bad("the PEM block is a " + block.Type + ", not a private key")
	}
	if err != nil {
		return nil, bad("the " + block.Type + " block does not parse")
	}
	switch key := key.(type) {
	case *rsa.PrivateKey:
		if key.N.BitLen() < 2048 {
			return nil, bad("RSA keys under 2048 bits are refused")
		}
		return key, nil
	case *ecdsa.PrivateKey:
		switch key.Curve {
		case elliptic.P256(), elliptic.P384(), elliptic.P521():
			return key, nil
		}
		return nil, bad("only P-256, P-384 and P-521 EC keys are supported")
	case ed25519.PrivateKey:
		return key, nil
	}
	return nil, bad("unsupported key type: use RSA, EC (P-256, P-384, P-521) or Ed25519")
}

// chooseAlgorithm picks the JWS algorithm for a public key: want when the
// key can sign with it, else the key's first (RS256 for RSA, ES256/ES384/
// ES512 by curve, EdDSA for Ed25519). setting names what to fix.
func chooseAlgorithm(pub crypto.PublicKey, want jose.SignatureAlgorithm, setting string) (jose.SignatureAlgorithm, error) {
	var allowed []jose.SignatureAlgorithm
	switch k := pub.(type) {
	case *rsa.PublicKey:
		allowed = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512}
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			allowed = []jose.SignatureAlgorithm{jose.ES256}
		case elliptic.P384():
			allowed = []jose.SignatureAlgorithm{jose.ES384}
		case elliptic.P521():
			allowed = []jose.SignatureAlgorithm{jose.ES512}
		}
	case ed25519.PublicKey:
		allowed = []jose.SignatureAlgorithm{jose.EdDSA}
	}
	if len(allowed) == 0 {
		return "", &ConfigError{Setting: setting, Problem: "unsupported key type: use RSA, EC (P-256, P-384, P-521) or Ed25519"}
	}
	if want == "" {
		return allowed[0], nil
	}
	for _, a := range allowed {
		if a == want {
			return a, nil
		}
	}
	return "", &ConfigError{Setting: setting, Problem: "the key cannot sign with " + string(want)}
}

func (k *keyAuth) check(cfg *clientConfig) error {
	if k.audience == audienceIssuer && cfg.issuer == "" {
		return &ConfigError{
			Setting: clientEnvPrefix + "ISSUER",
			Problem: "oauthclient.PrivateKey signs assertions for the issuer by default: set the issuer, or pass oauthclient.AudienceTokenEndpoint",
		}
	}
	return nil
}

func (k *keyAuth) method(*metadata) string { return "private_key_jwt" }

func (k *keyAuth) authenticate(_ context.Context, c *Client, meta *metadata, _ http.Header, form url.Values) error {
	aud := c.issuer
	if k.audience == AudienceTokenEndpoint {
		aud = meta.tokenEndpoint
	}
	now := time.Now()
	claims := jwt.Claims{
		Issuer:   c.clientID,
		Subject:  c.clientID,
		Audience: jwt.Audience{aud},
		IssuedAt: jwt.NewNumericDate(now),
		Expiry:   jwt.NewNumericDate(now.Add(assertionLifetime)),
		ID:       rand.Text(),
	}
	assertion, err := jwt.Signed(k.signer).Claims(claims).Serialize()
	if err != nil {
		return &ConfigError{Setting: "oauthclient.PrivateKey", Problem: "signing the client assertion failed"}
	}
	form.Set("client_id", c.clientID)
	form.Set("client_assertion_type", jwtBearerAssertion)
	form.Set("client_assertion", assertion)
	return nil
}

// rejectHint is added to invalid_client: a server that wants the token
// endpoint as audience refuses the RFC 7523bis form with that code.
func (k *keyAuth) rejectHint(*metadata) string {
	if k.audience == audienceIssuer {
		return "the client authenticated with private_key_jwt; check " + clientEnvPrefix + "CLIENT_ID and the client's registered key; the assertion's audience was the issuer — if the server expects the token endpoint (Ory Hydra does), pass oauthclient.AudienceTokenEndpoint to oauthclient.PrivateKey"
	}
	return "the client authenticated with private_key_jwt; check " + clientEnvPrefix + "CLIENT_ID and the client's registered key"
}
