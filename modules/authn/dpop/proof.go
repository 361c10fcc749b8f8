package dpop

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/go-jose/go-jose/v4"
	josejson "github.com/go-jose/go-jose/v4/json"
)

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
	case len(vals[0]) > maxProofBytes:
		return "", refuse(ReasonOversized)
	}
	return vals[0], nil
}

// segments are a compact JWS's parts: the header as sent (the key cache's
// key), the signing input as sent, and the decoded payload and signature.
type segments struct {
	head, input  string
	payload, sig []byte
}

// split reads a compact JWS of exactly three segments, each canonical
// base64url (a non-canonical spelling of the same bytes must not verify).
// An empty signature (alg none) is left to the alg check, which names it.
func split(raw string) (segments, bool) {
	head, rest, _ := strings.Cut(raw, ".")
	body, sig, ok := strings.Cut(rest, ".")
	if !ok || strings.IndexByte(sig, '.') >= 0 || head == "" || body == "" {
		return segments{}, false
	}
	enc := base64.RawURLEncoding.Strict()
	p, err1 := enc.DecodeString(body)
	s, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return segments{}, false
	}
	return segments{head: head, input: raw[:len(head)+1+len(body)], payload: p, sig: s}, true
}

// proofKey is what a proof's header settles: its algorithm and its key,
// and the key's thumbprint. It depends on the header's bytes alone, so it
// is cached by them: a client sends the same header with every proof.
type proofKey struct {
	alg        jose.SignatureAlgorithm
	key        crypto.PublicKey
	thumbprint string
}

// header is the protected header's members svc reads. go-jose's JSON
// reader refuses duplicate members ({"alg":"none","alg":"ES256"}).
type header struct {
	Type string              `json:"typ"`
	Alg  string              `json:"alg"`
	JWK  josejson.RawMessage `json:"jwk"`
	Crit josejson.RawMessage `json:"crit"`
}

// readHeader checks the header: typ dpop+jwt, an allowed alg, no crit (no
// extension is understood), a public jwk of the alg's family and a usable
// size.
func (v *Verifier) readHeader(head string) (*proofKey, error) {
	hb, err := base64.RawURLEncoding.Strict().DecodeString(head)
	if err != nil {
		return nil, refuse(ReasonMalformed)
	}
	var h header
	if err := josejson.Unmarshal(hb, &h); err != nil || h.Crit != nil {
		return nil, refuse(ReasonMalformed)
	}
	if !strings.EqualFold(h.Type, "dpop+jwt") {
		return nil, refuse(ReasonType)
	}
	alg, ok := v.allowed(h.Alg)
	if !ok {
		return nil, refuse(ReasonAlgorithm)
	}
	var members map[string]josejson.RawMessage
	if h.JWK == nil || josejson.Unmarshal(h.JWK, &members) != nil || members == nil {
		return nil, refuse(ReasonKey)
	}
	for _, m := range privateMembers {
		if _, ok := members[m]; ok {
			return nil, refuse(ReasonKey)
		}
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(h.JWK); err != nil || !jwk.Valid() || !jwk.IsPublic() || !fits(alg, jwk.Key) {
		return nil, refuse(ReasonKey)
	}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, refuse(ReasonKey)
	}
	return &proofKey{alg: alg, key: jwk.Key, thumbprint: base64.RawURLEncoding.EncodeToString(tp)}, nil
}

func (v *Verifier) allowed(name string) (jose.SignatureAlgorithm, bool) {
	for _, a := range v.algs {
		if string(a) == name {
			return a, true
		}
	}
	return "", false
}

// fits reports whether key is of alg's family, curve and size.
func fits(alg jose.SignatureAlgorithm, key crypto.PublicKey) bool {
	switch k := key.(type) {
	case *ecdsa.PublicKey:
		bits := k.Curve.Params().BitSize
		return alg == jose.ES256 && bits == 256 || alg == jose.ES384 && bits == 384 || alg == jose.ES512 && bits == 521
	case *rsa.PublicKey:
		return k.N.BitLen() >= minRSABits && (alg[0] == 'R' || alg[0] == 'P')
	case ed25519.PublicKey:
		return alg == jose.EdDSA
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
