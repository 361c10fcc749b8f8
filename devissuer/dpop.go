package devissuer

import (
	"crypto"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Bounds of a DPoP proof at the token endpoint (RFC 9449 §4.3).
const (
	maxProofBytes = 8 << 10
	proofMaxAge   = 2 * time.Minute // a development clock may lag
	proofAhead    = time.Minute
	nonceStep     = time.Minute
)

// proofAlgorithms are the asymmetric algorithms a proof may use: never
// none nor HMAC.
var proofAlgorithms = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512, jose.EdDSA}

// dpopProof checks the DPoP proof of a request to endpoint, if it has
// one, and returns its key's RFC 7638 thumbprint: the cnf.jkt of the
// token issued. ("", nil) means no proof: the token is not bound.
func (i *Issuer) dpopProof(r *http.Request, endpoint string) (string, *oauthErr) {
	proofs := r.Header.Values("DPoP")
	switch {
	case len(proofs) == 0:
		return "", nil
	case len(proofs) > 1:
		return "", badProof("send one DPoP header")
	case len(proofs[0]) > maxProofBytes:
		return "", badProof("the proof is over 8 KiB")
	}
	obj, err := jose.ParseSignedCompact(proofs[0], proofAlgorithms)
	if err != nil || len(obj.Signatures) != 1 {
		return "", badProof("the proof is not a compact JWS with an asymmetric alg")
	}
	h := obj.Signatures[0].Protected
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != "dpop+jwt" {
		return "", badProof("the proof's typ must be dpop+jwt")
	}
	if h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() || !h.JSONWebKey.Valid() {
		return "", badProof("the proof's header must carry its public jwk")
	}
	payload, err := obj.Verify(h.JSONWebKey)
	if err != nil {
		return "", badProof("the proof's signature does not verify with its jwk")
	}
	var c struct {
		JTI   string `json:"jti"`
		HTM   string `json:"htm"`
		HTU   string `json:"htu"`
		IAT   int64  `json:"iat"`
		Nonce string `json:"nonce"`
	}
	if json.Unmarshal(payload, &c) != nil {
		return "", badProof("the proof's claims do not parse")
	}
	want := i.endpointURL(r, endpoint)
	iat, now := time.Unix(c.IAT, 0), time.Now()
	switch {
	case c.HTM != r.Method:
		return "", badProof("the proof's htm must be " + r.Method)
	case strings.SplitN(strings.SplitN(c.HTU, "#", 2)[0], "?", 2)[0] != want:
		return "", badProof("the proof's htu must be " + want)
	case iat.Before(now.Add(-proofMaxAge)) || iat.After(now.Add(proofAhead)):
		return "", badProof("the proof's iat is not within two minutes of this server's clock")
	case c.JTI == "":
		return "", badProof("the proof has no jti")
	}
	if n := i.srv.nonces; n != nil && !n.valid(c.Nonce) {
		e := badRequest("use_dpop_nonce", "send the DPoP-Nonce of this answer in the proof's nonce claim")
		e.dpopNonce = n.current()
		return "", e
	}
	sum, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", badProof("the proof's jwk has no thumbprint")
	}
	jkt := base64.RawURLEncoding.EncodeToString(sum)
	if !i.srv.replay.first("dpop "+jkt+" "+c.JTI, iat.Add(proofMaxAge+proofAhead)) {
		return "", badProof("the proof's jti was used before: sign a fresh proof for each request")
	}
	return jkt, nil
}

func badProof(desc string) *oauthErr { return badRequest("invalid_dpop_proof", desc) }

// nonceSource makes the server's DPoP nonces: a random one a minute, the
// previous one still accepted.
type nonceSource struct {
	mu        sync.Mutex
	cur, prev string
	since     time.Time
}

func newNonceSource() *nonceSource {
	return &nonceSource{cur: rand.Text(), since: time.Now()}
}

func (n *nonceSource) current() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if time.Since(n.since) > nonceStep {
		n.prev, n.cur, n.since = n.cur, rand.Text(), time.Now()
	}
	return n.cur
}

func (n *nonceSource) valid(s string) bool {
	cur := n.current()
	n.mu.Lock()
	defer n.mu.Unlock()
	return s != "" && (s == cur || s == n.prev)
}

// replaySet remembers single-use values (DPoP jti, assertion jti) until
// they would be refused anyway.
type replaySet struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

func newReplaySet() *replaySet { return &replaySet{seen: map[string]time.Time{}} }

// first reports whether key is seen for the first time, and remembers it
// until until.
func (s *replaySet) first(key string, until time.Time) bool {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) >= maxHeld {
		for k, t := range s.seen {
			if t.Before(now) {
				delete(s.seen, k)
			}
		}
	}
	if t, ok := s.seen[key]; ok && now.Before(t) {
		return false
	}
	s.seen[key] = until
	return true
}
