package dpop

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/go-jose/go-jose/v4"
)

const crypto256 = crypto.SHA256

// minRSABits is the smallest RSA modulus a proof key may have.
const minRSABits = 2048

// privateMembers are JWK members only a private or symmetric key has
// (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2).
var privateMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

// proofHeader is the one DPoP header of r, bounded before anything reads it.
func proofHeader(r *http.Request) (string, error) {
	vals := r.Header.Values("DPoP")
	switch {
	case len(vals) == 0 || vals[0] == "":
		return "", refuse(ReasonMissing)
	case len(vals) > 1:
		return "", refuse(ReasonMultiple)
	case len(vals[0]) > MaxProofBytes:
		return "", refuse(ReasonOversized)
	}
	return vals[0], nil
}

// proofHead is what the protected header must hold beside what go-jose
// reads: typ, and the jwk's members as sent.
type proofHead struct {
	Type string                     `json:"typ"`
	JWK  map[string]json.RawMessage `json:"jwk"`
}

// parse reads a compact JWS with three canonical base64url segments, typ
// dpop+jwt, an allowed alg and a public jwk of a usable size, and returns
// it with its key (unverified).
func (v *Verifier) parse(raw string) (*jose.JSONWebSignature, *jose.JSONWebKey, error) {
	if strings.Count(raw, ".") != 2 {
		return nil, nil, refuse(ReasonMalformed)
	}
	head, _, _ := strings.Cut(raw, ".")
	for i, seg := range strings.SplitN(raw, ".", 3) {
		// go-jose re-encodes segments before checking: a non-canonical
		// spelling of the same bytes would pass it. An empty signature
		// (alg none) is left to the alg check, which names it.
		if _, err := base64.RawURLEncoding.Strict().DecodeString(seg); err != nil || seg == "" && i < 2 {
			return nil, nil, refuse(ReasonMalformed)
		}
	}
	hb, _ := base64.RawURLEncoding.DecodeString(head)
	var h proofHead
	if err := json.Unmarshal(hb, &h); err != nil {
		return nil, nil, refuse(ReasonMalformed)
	}
	if !strings.EqualFold(h.Type, "dpop+jwt") {
		return nil, nil, refuse(ReasonType)
	}
	if h.JWK == nil {
		return nil, nil, refuse(ReasonKey)
	}
	for _, m := range privateMembers {
		if _, ok := h.JWK[m]; ok {
			return nil, nil, refuse(ReasonKey)
		}
	}
	var alg struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(hb, &alg) != nil || !v.allows(alg.Alg) {
		return nil, nil, refuse(ReasonAlgorithm)
	}
	jws, err := jose.ParseSignedCompact(raw, v.algs)
	if err != nil || len(jws.Signatures) != 1 {
		return nil, nil, refuse(ReasonMalformed)
	}
	key := jws.Signatures[0].Protected.JSONWebKey
	if key == nil || !key.Valid() || !key.IsPublic() {
		return nil, nil, refuse(ReasonKey)
	}
	if k, ok := key.Key.(*rsa.PublicKey); ok && k.N.BitLen() < minRSABits {
		return nil, nil, refuse(ReasonKey)
	}
	return jws, key, nil
}

func (v *Verifier) allows(alg string) bool {
	for _, a := range v.algs {
		if string(a) == alg {
			return true
		}
	}
	return false
}

// claims are the proof's claims svc reads.
type claims struct {
	ID        string  `json:"jti"`
	Method    string  `json:"htm"`
	URL       string  `json:"htu"`
	IssuedAt  float64 `json:"iat"`
	TokenHash string  `json:"ath"`
	Nonce     string  `json:"nonce"`
}

// readClaims reads the verified payload: a JSON object whose jti, htm,
// htu and iat are present (a claim of the wrong type is malformed).
func readClaims(payload []byte) (claims, error) {
	var c claims
	d := json.NewDecoder(bytes.NewReader(payload))
	if err := d.Decode(&c); err != nil || d.More() {
		return claims{}, refuse(ReasonMalformed)
	}
	switch {
	case c.ID == "":
		return claims{}, refuse(ReasonID)
	case c.Method == "":
		return claims{}, refuse(ReasonMethod)
	case c.URL == "":
		return claims{}, refuse(ReasonURL)
	case !(c.IssuedAt > 0 && c.IssuedAt < 1<<40):
		return claims{}, refuse(ReasonIssuedAt)
	}
	return c, nil
}
