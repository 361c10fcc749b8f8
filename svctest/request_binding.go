package svctest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/cryptosigner"
)

// DPoP sends the request with a fresh DPoP proof (RFC 9449) signed by key
// (an *ecdsa.PrivateKey, *rsa.PrivateKey, ed25519.PrivateKey, or any
// crypto.Signer of those): htm and htu the request's, iat now, a new jti
// each Send, and ath the token's when one is set, which then goes with
// the DPoP scheme instead of Bearer. When the app answers 401
// use_dpop_nonce with a DPoP-Nonce, the request is sent once more with a
// proof carrying that nonce, as a client does. A key that cannot sign
// fails the test at Send.
func (r *Request) DPoP(key crypto.Signer) *Request {
	r.dpopKey = key
	return r
}

// ClientCertificate sends der, a client certificate, as a TLS-terminating
// proxy passes it on: in the Client-Cert header (RFC 9440). The app reads
// it with authn.CertificateBound("Client-Cert") when it trusts the test's
// loopback address as a proxy (fxsvc.TrustedProxies("127.0.0.1/32") or
// SVC_HTTP_TRUSTED_PROXIES), as it would its proxy's in production.
func (r *Request) ClientCertificate(der []byte) *Request {
	r.header.Set("Client-Cert", ":"+base64.StdEncoding.EncodeToString(der)+":")
	return r
}

// proofAlgorithm is the JWS algorithm of a DPoP key ("" for a key of no
// algorithm DPoP allows).
func proofAlgorithm(key crypto.Signer) jose.SignatureAlgorithm {
	switch k := key.Public().(type) {
	case *ecdsa.PublicKey:
		return map[int]jose.SignatureAlgorithm{256: jose.ES256, 384: jose.ES384, 521: jose.ES512}[k.Curve.Params().BitSize]
	case *rsa.PublicKey:
		return jose.RS256
	case ed25519.PublicKey:
		return jose.EdDSA
	}
	return ""
}

// proof signs the DPoP proof of req, with nonce when not empty.
func (r *Request) proof(req *http.Request, nonce string) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: proofAlgorithm(r.dpopKey), Key: cryptosigner.Opaque(r.dpopKey)},
		(&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
	if err != nil {
		return "", err
	}
	u := *req.URL
	u.RawQuery, u.ForceQuery, u.Fragment = "", false, ""
	claims := map[string]any{"jti": rand.Text(), "htm": req.Method, "htu": u.String(), "iat": time.Now().Unix()}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	auth := req.Header.Get("Authorization")
	tok, bearer := strings.CutPrefix(auth, "Bearer ")
	if !bearer {
		tok, _ = strings.CutPrefix(auth, "DPoP ") // a retry's, already moved
	}
	if tok != "" && tok != auth {
		sum := sha256.Sum256([]byte(tok))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
		req.Header.Set("Authorization", "DPoP "+tok) // RFC 9449 §7.1
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

// wantsNonce reports whether an answer asks for a proof with a nonce
// (RFC 9449 §9), and which.
func wantsNonce(resp *http.Response) (string, bool) {
	n := resp.Header.Get("DPoP-Nonce")
	if resp.StatusCode != http.StatusUnauthorized || n == "" {
		return "", false
	}
	for _, c := range resp.Header.Values("WWW-Authenticate") {
		if strings.Contains(c, `error="use_dpop_nonce"`) {
			return n, true
		}
	}
	return "", false
}
