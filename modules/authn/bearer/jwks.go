package bearer

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"go.uber.org/zap"

	"github.com/svckit/svc/internal/urlshape"
)

// maxHonouredMaxAge caps a JWKS response's Cache-Control max-age; the
// refresh interval caps it further.
const maxHonouredMaxAge = 24 * time.Hour

// JWKSURL returns a verifier that loads its keys from the JWK Set at url,
// in the background once opened, and again every refresh interval and when
// a token names an unknown kid (at most once per RotationCooldown).
//
// url must be https, or http on a loopback host (127.0.0.0/8, ::1,
// localhost) for tests and development. Tokens must carry `iss` equal to
// issuer and an `aud` containing audience. Nothing panics on bad input: an
// empty issuer or audience, a bad url or an invalid option is returned as a
// *ConfigError from Open and from every Verify.
func JWKSURL(url, issuer, audience string, opts ...VerifierOption) *JWTVerifier {
	v := newVerifier(issuer, audience, opts)
	if issuer == "" {
		v.cfg.refuse("issuer", "is empty; pass the issuer the tokens name in iss")
	}
	if err := urlshape.Fetchable(url); err != nil {
		v.cfg.refuse("JWKS URL", err.Error())
	}
	v.finish()
	if v.err == nil {
		v.keys = newKeyManager(func(ctx context.Context) ([]*heldKey, time.Duration, error) {
			set, maxAge, err := fetchJWKS(ctx, v.client, url, v.cfg.logger)
			if err != nil {
				// The URL rides along so the loader's log can name it and
				// redact it wherever the cause quotes it (an invalid
				// document's error carries no *url.Error to find it by).
				return nil, 0, &loadError{stage: "jwks", url: url, err: err}
			}
			return set, maxAge, nil
		}, &v.cfg, &v.set)
	}
	return v
}

// defaultHTTPClient follows redirects only to URLs keys may be fetched
// from, so a redirect cannot downgrade a fetch to plain http.
func defaultHTTPClient() *http.Client {
	return &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		if err := urlshape.Fetchable(req.URL.String()); err != nil {
			return fmt.Errorf("redirect refused: URL %w", err)
		}
		return nil
	}}
}

// fetchDocument GETs a JSON document, asking every cache on the way for a
// fresh copy (a proxy serving a stale JWKS would hide a rotated key).
func fetchDocument(ctx context.Context, hc *http.Client, target, accept string) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: %w", target, err)
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("Cache-Control", "no-cache")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: %w", target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: reading body: %w", target, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, &fetchStatusError{URL: target, Status: resp.StatusCode}
	}
	if len(body) > maxDocumentSize {
		return nil, nil, fmt.Errorf("GET %s: document larger than %d bytes", target, maxDocumentSize)
	}
	return body, resp.Header, nil
}

// fetchStatusError is a fetch answered with another status than 200.
type fetchStatusError struct {
	URL    string
	Status int
}

func (e *fetchStatusError) Error() string {
	return fmt.Sprintf("GET %s: status %d", e.URL, e.Status)
}

func fetchJWKS(ctx context.Context, hc *http.Client, target string, log *zap.Logger) ([]*heldKey, time.Duration, error) {
	body, header, err := fetchDocument(ctx, hc, target, "application/jwk-set+json, application/json")
	if err != nil {
		return nil, 0, err
	}
	keys, err := parseJWKS(body, log)
	if err != nil {
		return nil, 0, fmt.Errorf("JWKS %s: %w", target, err)
	}
	return keys, maxAge(header.Get("Cache-Control")), nil
}

// parseJWKS reads the signing keys of a JWK Set. Keys that are not for
// verifying signatures (`use` other than sig, `key_ops` without verify,
// RFC 7517 §4.2-4.3) are skipped quietly; keys svc cannot use (unknown or
// symmetric kty, RSA under 2048 or over 4096 bits, an even modulus, a bad
// exponent or the ROCA fingerprint, an EC point missing or off its curve,
// an unsupported curve or alg) are skipped with a warning naming the key,
// as RFC 7517 §5 asks. A set left with no usable key is an error, so the
// keys held before stay in use.
func parseJWKS(body []byte, log *zap.Logger) ([]*heldKey, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("not a JWK Set: %w", err)
	}
	keys := make([]*heldKey, 0, len(doc.Keys))
	for i, raw := range doc.Keys {
		k, err := parseJWK(raw)
		var notSigning *notForVerifyingError
		switch {
		case errors.As(err, &notSigning):
			log.Debug("JWK skipped", zap.Int("index", i), zap.Error(err))
			continue
		case err != nil:
			log.Warn("JWK skipped: unusable key in the key set", zap.Int("index", i), zap.Error(err))
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no usable signing key among %d", len(doc.Keys))
	}
	return keys, nil
}

// notForVerifyingError is a JWK its publisher marked for another purpose
// than verifying signatures: skipping it is normal, not a fault.
type notForVerifyingError struct{ kid, why string }

func (e *notForVerifyingError) Error() string {
	return fmt.Sprintf("kid %s: not a verification key (%s)", quoteSetting(e.kid), e.why)
}

func parseJWK(raw json.RawMessage) (*heldKey, error) {
	// go-jose neither reads key_ops nor names the key in its errors.
	var head struct {
		Kid    string    `json:"kid"`
		KeyOps *[]string `json:"key_ops"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("not a JWK with a string kid and key_ops of strings: %w", err)
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("kid %s: %w", quoteSetting(head.Kid), err)
	}
	if jwk.Use != "" && jwk.Use != "sig" {
		return nil, &notForVerifyingError{jwk.KeyID, "use " + quoteSetting(jwk.Use)}
	}
	// A key whose operations leave out verify must not verify, whatever
	// its use says (RFC 7517 §4.3).
	if head.KeyOps != nil && !slices.Contains(*head.KeyOps, "verify") {
		return nil, &notForVerifyingError{jwk.KeyID, "key_ops without verify"}
	}
	var pub crypto.PublicKey
	switch key := jwk.Key.(type) {
	case *rsa.PrivateKey:
		pub = &key.PublicKey
	case *ecdsa.PrivateKey:
		pub = &key.PublicKey
	case ed25519.PrivateKey:
		pub = key.Public()
	default:
		pub = key
	}
	k, err := newHeldKey(pub, jwk.KeyID, jwk.Algorithm)
	if err != nil {
		return nil, fmt.Errorf("kid %s: %w", quoteSetting(jwk.KeyID), err)
	}
	return k, nil
}

// maxAge reads max-age from a Cache-Control header; 0 when absent, invalid
// or when the response may not be stored.
func maxAge(cc string) time.Duration {
	var age time.Duration
	for part := range strings.SplitSeq(cc, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch strings.ToLower(name) {
		case "no-store", "no-cache":
			return 0
		case "max-age":
			n, err := strconv.ParseInt(strings.Trim(value, `"`), 10, 64)
			if err != nil || n <= 0 {
				return 0
			}
			age = min(time.Duration(min(n, int64(maxHonouredMaxAge/time.Second)))*time.Second, maxHonouredMaxAge)
		}
	}
	return age
}

// thumbprint is the RFC 7638 SHA-256 thumbprint of k, base64url-encoded:
// the id a held key answers to.
func thumbprint(k *heldKey) string {
	sum, err := (&jose.JSONWebKey{Key: k.public()}).Thumbprint(crypto.SHA256)
	if err != nil {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(sum)
}
