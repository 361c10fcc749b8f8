package oauthclient

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// dpopTyp is the typ header of a DPoP proof (RFC 9449 §4.2).
const dpopTyp = "dpop+jwt"

// maxNonce bounds a server's DPoP-Nonce kept and sent back: a nonce is a
// short opaque string, and a longer one is a broken or hostile server.
const maxNonce = 512

// maxNonceOrigins bounds the servers whose nonce is remembered; past it
// the memory starts over, and a server that wants a nonce asks again.
const maxNonceOrigins = 256

// DPoP makes the client's tokens sender-constrained (RFC 9449): every
// token request carries a proof signed by signer, the token endpoint
// answers with a token bound to its key (token_type DPoP), and
// [Pattern.Transport] sends that token with a fresh proof for each
// request. A nil signer means an ES256 key generated when the client is
// built, held in memory only. Any crypto.Signer works (a KMS or HSM key):
// it signs one proof per token request and one per API request.
//
// A server's DPoP-Nonce is remembered per server (scheme and host) and
// sent in later proofs; a use_dpop_nonce refusal is answered with exactly
// one more request carrying the new nonce. A server that does not bind
// tokens answers token_type Bearer: the token is then sent as a bearer
// token, without proofs.
//
// New refuses a key that is not RSA (2048 bits or more), EC P-256, P-384
// or P-521, or Ed25519.
func DPoP(signer crypto.Signer) Option {
	return clientOption(func(c *clientConfig) error {
		c.dpop, c.dpopSigner = true, signer
		return nil
	})
}

// dpopKey signs proofs with the client's DPoP key and remembers the
// servers' nonces.
type dpopKey struct {
	signer jose.Signer

	mu     sync.Mutex
	nonces map[string]string // origin → the nonce it sent last
}

func newDPoPKey(s crypto.Signer) (*dpopKey, error) {
	const setting = "oauthclient.DPoP"
	if s == nil {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, &ConfigError{Setting: setting, Problem: "generating the ES256 key failed"}
		}
		s = key
	}
	alg, err := chooseAlgorithm(s.Public(), "", setting)
	if err != nil {
		return nil, err
	}
	opts := (&jose.SignerOptions{EmbedJWK: true}).WithType(dpopTyp)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: opaque(s)}, opts)
	if err != nil {
		return nil, &ConfigError{Setting: setting, Problem: "the key cannot sign " + string(alg)}
	}
	return &dpopKey{signer: signer, nonces: make(map[string]string)}, nil
}

// proofClaims are the claims of RFC 9449 §4.2.
type proofClaims struct {
	JTI   string `json:"jti"`
	HTM   string `json:"htm"`
	HTU   string `json:"htu"`
	IAT   int64  `json:"iat"`
	ATH   string `json:"ath,omitempty"`
	Nonce string `json:"nonce,omitempty"`
}

// errDPoPSign is returned when the DPoP key fails to sign; a KMS error is
// not wrapped, as its text may name key material or the KMS's address.
var errDPoPSign = &ConfigError{Setting: "oauthclient.DPoP", Problem: "signing the DPoP proof failed (check the signer)"}

// proof signs a proof for a request with method to u; ath is the hash of
// the access token sent with it, empty for a token request. It returns
// the nonce it carries, so a refusal can tell a new nonce from the one
// already sent.
func (k *dpopKey) proof(method string, u *url.URL, ath string) (string, string, error) {
	nonce := k.nonce(u)
	payload, err := json.Marshal(proofClaims{
		JTI:   rand.Text(),
		HTM:   method,
		HTU:   htu(u),
		IAT:   time.Now().Unix(), // the server's clock judges iat, not the client's test clock
		ATH:   ath,
		Nonce: nonce,
	})
	if err != nil {
		return "", "", errDPoPSign
	}
	jws, err := k.signer.Sign(payload)
	if err != nil {
		return "", "", errDPoPSign
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		return "", "", errDPoPSign
	}
	return s, nonce, nil
}

// htu is the request's URL without query and fragment (RFC 9449 §4.2).
func htu(u *url.URL) string {
	v := *u
	v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment, v.User = "", false, "", "", nil
	return v.String()
}

// origin keys the nonce memory: a nonce belongs to the server that sent it.
func origin(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

func (k *dpopKey) nonce(u *url.URL) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.nonces[origin(u)]
}

// note remembers the DPoP-Nonce of an answer from u, if it holds a valid
// one, and returns it.
func (k *dpopKey) note(u *url.URL, h http.Header) string {
	n := h.Get("Dpop-Nonce")
	if !validNonce(n) {
		return ""
	}
	o := origin(u)
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.nonces[o]; !ok && len(k.nonces) >= maxNonceOrigins {
		clear(k.nonces)
	}
	k.nonces[o] = n
	return n
}

// validNonce accepts the NQCHAR string of RFC 9449 §8.1, bounded.
func validNonce(n string) bool {
	if n == "" || len(n) > maxNonce {
		return false
	}
	for i := 0; i < len(n); i++ {
		if c := n[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// tokenHash is the ath of a proof: base64url(SHA-256(token)).
func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// retryWithNonce reports whether an answer asks for a proof with a nonce
// the refused request did not carry: a use_dpop_nonce error and a new
// DPoP-Nonce. fresh is the nonce note returned for the answer.
func retryWithNonce(status int, h http.Header, body []byte, sent, fresh string) bool {
	if fresh == "" || fresh == sent {
		return false
	}
	switch status {
	case http.StatusBadRequest: // the token endpoint (RFC 9449 §8)
		return errorCode(body) == "use_dpop_nonce"
	case http.StatusUnauthorized: // a resource server (RFC 9449 §9)
		return challengeError(h, "DPoP") == "use_dpop_nonce"
	}
	return false
}
