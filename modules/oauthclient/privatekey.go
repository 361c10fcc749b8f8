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
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/cryptosigner"
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
// sign with, or a certificate for another key. A key held outside the
// process (a KMS, an HSM) goes to [PrivateKeySigner] instead.
func PrivateKey(keyPEM []byte, opts ...PrivateKeyOption) ClientAuth {
	k := &keyAuth{setting: "oauthclient.PrivateKey"}
	priv, err := parsePrivateKey(keyPEM)
	if err != nil {
		k.err = err
		return k
	}
	k.err = k.init(priv, opts)
	return k
}

// PrivateKeySigner is [PrivateKey] with the key behind a crypto.Signer, so
// a key in a cloud KMS, an HSM (PKCS#11) or a TPM signs the assertions
// without ever entering the process: RSA of 2048 bits or more (RS256 by
// default; PS256, PS384, PS512 with [SigningAlgorithm], sent to the signer
// as rsa.PSSOptions with the salt as long as the hash), or ECDSA P-256,
// P-384, P-521 (ES256, ES384, ES512; the signer's ASN.1 signature is
// converted to JOSE's form), or Ed25519.
//
// Sign is called once per token request, on a goroutine of its own and
// under no lock the client shares: a slow signer delays that one fetch,
// never another pattern's fetch nor a request served from the cache.
// crypto.Signer takes no context, so the signer is called with no
// deadline: the fetch gives up waiting for it at the client's [Timeout]
// (and at Close), failing with a *ConfigError that says so, but the
// signer's goroutine runs until Sign returns; at most eight are kept
// waiting, past which fetches wait for a place. Bound the signer's own
// remote calls. Its error fails the fetch with a *ConfigError naming
// oauthclient.PrivateKeySigner, without the signer's own text (it may
// name the key or the KMS's address).
//
// New refuses a nil signer and the keys [PrivateKey] refuses.
func PrivateKeySigner(signer crypto.Signer, opts ...PrivateKeyOption) ClientAuth {
	k := &keyAuth{setting: "oauthclient.PrivateKeySigner"}
	if signer == nil {
		k.err = &ConfigError{Setting: k.setting, Problem: "the signer is nil"}
		return k
	}
	k.err = k.init(signer, opts)
	return k
}

type keyAuth struct {
	setting  string // the constructor, for errors
	audience keyAudience
	kid      string
	alg      jose.SignatureAlgorithm
	cert     *x509.Certificate
	signer   jose.Signer
	signing  chan struct{} // a place per signature under way, maxSigning of them
	err      error
}

func (k *keyAuth) applyClient(c *clientConfig) error {
	if k.err != nil {
		return k.err
	}
	c.auth = k
	return nil
}

// init builds the JOSE signer. Every key, parsed from PEM or held by a
// KMS, signs through go-jose's opaque signer: one signing path to trust.
func (k *keyAuth) init(key crypto.Signer, opts []PrivateKeyOption) error {
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.applyKey(k); err != nil {
			return err
		}
	}
	var err error
	if k.alg, err = chooseAlgorithm(key.Public(), k.alg, k.setting); err != nil {
		return err
	}
	so := &jose.SignerOptions{}
	if k.audience == audienceIssuer {
		so = so.WithType(assertionTyp)
	}
	if k.kid != "" {
		// The opaque signer's public JWK has no kid of its own.
		so = so.WithHeader(jose.HeaderKey("kid"), k.kid)
	}
	if k.cert != nil {
		pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool })
		if !ok || !pub.Equal(k.cert.PublicKey) {
			return &ConfigError{Setting: "oauthclient.Certificate", Problem: "the certificate is for another key than " + k.setting + "'s"}
		}
		sum := sha256.Sum256(k.cert.Raw)
		so = so.WithHeader("x5t#S256", base64.RawURLEncoding.EncodeToString(sum[:]))
	}
	k.signer, err = jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: opaque(key)}, so)
	if err != nil {
		return &ConfigError{Setting: k.setting, Problem: "the key cannot sign " + string(k.alg)}
	}
	k.signing = make(chan struct{}, maxSigning)
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
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, bad("unsupported key type: use RSA, EC (P-256, P-384, P-521) or Ed25519")
	}
	return signer, nil
}

// chooseAlgorithm picks the JWS algorithm for a public key: want when the
// key can sign with it, else the key's first (RS256 for RSA, ES256/ES384/
// ES512 by curve, EdDSA for Ed25519). It refuses RSA under 2048 bits and
// other curves or key types. setting names what to fix.
func chooseAlgorithm(pub crypto.PublicKey, want jose.SignatureAlgorithm, setting string) (jose.SignatureAlgorithm, error) {
	var allowed []jose.SignatureAlgorithm
	switch k := pub.(type) {
	case *rsa.PublicKey:
		if k.N.BitLen() < 2048 {
			return "", &ConfigError{Setting: setting, Problem: "RSA keys under 2048 bits are refused"}
		}
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

func (k *keyAuth) authenticate(ctx context.Context, c *Client, meta *metadata, _ http.Header, form url.Values) error {
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
	assertion, err := k.sign(ctx, claims)
	if err != nil {
		return err
	}
	setAssertion(form, c.clientID, assertion)
	return nil
}

// maxSigning bounds the signatures under way at once per key: crypto.Signer
// takes no context, so a signer that hangs keeps its goroutine until it
// returns, and at most this many are kept.
const maxSigning = 8

// sign signs claims on a goroutine of its own, so that the fetch gives up
// at ctx's end (the client's timeout, or Close) even when the signer never
// returns.
func (k *keyAuth) sign(ctx context.Context, claims jwt.Claims) (string, error) {
	late := &ConfigError{Setting: k.setting, Problem: "the signer did not answer within the client's timeout (" + clientEnvPrefix + "TIMEOUT, oauthclient.Timeout)"}
	select {
	case k.signing <- struct{}{}:
	case <-ctx.Done():
		return "", late
	}
	type result struct {
		assertion string
		err       error
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-k.signing }()
		a, err := jwt.Signed(k.signer).Claims(claims).Serialize()
		done <- result{a, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			// The signer's error is not wrapped: a KMS's text may name the
			// key or its address.
			return "", &ConfigError{Setting: k.setting, Problem: "signing the client assertion failed (check the signer)"}
		}
		return r.assertion, nil
	case <-ctx.Done():
		return "", late
	}
}

// rejectHint is added to invalid_client: a server that wants the token
// endpoint as audience refuses the RFC 7523bis form with that code.
func (k *keyAuth) rejectHint(*metadata) string {
	if k.audience == audienceIssuer {
		return "the client authenticated with private_key_jwt; check " + clientEnvPrefix + "CLIENT_ID and the client's registered key; the assertion's audience was the issuer — if the server expects the token endpoint (Ory Hydra does), pass oauthclient.AudienceTokenEndpoint to oauthclient.PrivateKey"
	}
	return "the client authenticated with private_key_jwt; check " + clientEnvPrefix + "CLIENT_ID and the client's registered key"
}

// opaque wraps a crypto.Signer for go-jose. go-jose's cryptosigner asks
// for RSA-PSS with rsa.PSSSaltLengthAuto, which Go's own RSA keys take as
// the longest salt that fits; RFC 7518 §3.5 wants the salt as long as the
// hash, and strict verifiers refuse anything else. pssSalt puts that in.
func opaque(s crypto.Signer) jose.OpaqueSigner { return cryptosigner.Opaque(pssSalt{s}) }

type pssSalt struct{ crypto.Signer }

func (p pssSalt) Sign(r io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	if o, ok := opts.(*rsa.PSSOptions); ok && o.SaltLength == rsa.PSSSaltLengthAuto {
		opts = &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: o.Hash}
	}
	return p.Signer.Sign(r, digest, opts)
}
