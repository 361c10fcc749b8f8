package dpop

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/maypok86/otter/v2"

	"github.com/svckit/svc/modules/store"
)

// maxProofBytes bounds a DPoP header: a proof with an RSA-4096 key is
// under 2 KiB, and nothing is split or decoded before the bound holds.
const maxProofBytes = 8 << 10

// Defaults of the [Verifier].
const (
	defaultMaxAge = 60 * time.Second // how old a proof's iat may be
	defaultAhead  = 5 * time.Second  // how far ahead of the clock it may be
)

// algorithms are the asymmetric algorithms [Algorithms] may allow.
var algorithms = map[string]jose.SignatureAlgorithm{
	"ES256": jose.ES256, "ES384": jose.ES384, "ES512": jose.ES512,
	"RS256": jose.RS256, "RS384": jose.RS384, "RS512": jose.RS512,
	"PS256": jose.PS256, "PS384": jose.PS384, "PS512": jose.PS512,
	"EdDSA": jose.EdDSA,
}

// Verifier checks DPoP proofs. It is safe for concurrent use.
type Verifier struct {
	algs   []jose.SignatureAlgorithm
	maxAge time.Duration
	ahead  time.Duration
	replay store.Replay
	nonces *NonceSource
	keys   *otter.Cache[string, *proofKey]
	now    func() time.Time
	err    error
}

// keyCacheBytes bounds the cache of proof headers read (about 4,000 EC
// clients' headers, 1,500 RSA-4096 ones): a client signs every proof with
// the same header, so its key is parsed and its thumbprint computed once.
const keyCacheBytes = 1 << 20

// Option configures [New].
type Option func(*Verifier)

// Algorithms sets the algorithms a proof may be signed with (default
// ES256): any of ES256, ES384, ES512, RS256, RS384, RS512, PS256, PS384,
// PS512 and EdDSA. New refuses none, HMAC and any other name.
func Algorithms(names ...string) Option {
	return func(v *Verifier) {
		v.algs = v.algs[:0]
		for _, n := range names {
			a, ok := algorithms[n]
			if !ok {
				v.err = fmt.Errorf("dpop: Algorithms: %q is not an asymmetric JWS algorithm svc verifies (ES256, ES384, ES512, RS256, RS384, RS512, PS256, PS384, PS512, EdDSA)", n)
				return
			}
			v.algs = append(v.algs, a)
		}
	}
}

// Window sets how old (maxAge) and how far ahead of the server's clock
// (ahead) a proof's iat may be; ahead is the allowance for the client's
// clock running fast. Defaults: 60s and 5s. New refuses
// a maxAge that is not positive and an ahead that is negative.
func Window(maxAge, ahead time.Duration) Option {
	return func(v *Verifier) { v.maxAge, v.ahead = maxAge, ahead }
}

// Store sets where the jti of each accepted proof is remembered for the
// window, so that a second use is refused (default: NewMemoryReplay with
// room for 100,000 proofs, which only one process sees; give every replica
// one shared store, such as redisstore's Client.DPoPReplay). A nil s keeps
// the default.
func Store(s store.Replay) Option { return func(v *Verifier) { v.replay = s } }

// RequireNonce makes every proof carry the current nonce of n (RFC 9449
// §8): a proof without it is refused, its answer carrying the nonce
// to use.
func RequireNonce(n *NonceSource) Option { return func(v *Verifier) { v.nonces = n } }

// New returns a Verifier. It refuses an algorithm it does not verify and
// a window that holds no time.
func New(opts ...Option) (*Verifier, error) {
	v := &Verifier{algs: []jose.SignatureAlgorithm{jose.ES256}, maxAge: defaultMaxAge, ahead: defaultAhead, now: time.Now}
	for _, o := range opts {
		o(v)
	}
	switch {
	case v.err != nil:
		return nil, v.err
	case len(v.algs) == 0:
		return nil, fmt.Errorf("dpop: Algorithms: name at least one algorithm, such as ES256")
	case v.maxAge <= 0 || v.ahead < 0:
		return nil, fmt.Errorf("dpop: Window: maxAge must be positive and ahead not negative")
	}
	v.keys = otter.Must(&otter.Options[string, *proofKey]{
		MaximumWeight: keyCacheBytes,
		Weigher:       func(h string, _ *proofKey) uint32 { return uint32(len(h)) + 64 },
		// Run maintenance on the caller: no goroutine outlives the verifier.
		Executor: func(fn func()) { fn() },
	})
	if v.replay == nil {
		v.replay = NewMemoryReplay(defaultReplayEntries)
	}
	return v, nil
}

// AllowedAlgorithms lists the algorithms v allows, in the order given to
// [Algorithms]: the algs parameter of the authn gate's WWW-Authenticate:
// DPoP challenge, and a server's dpop_signing_alg_values_supported.
func (v *Verifier) AllowedAlgorithms() []string {
	out := make([]string, len(v.algs))
	for i, a := range v.algs {
		out[i] = string(a)
	}
	return out
}

// Verify checks the DPoP proof of r, presented with accessToken ("" when
// none is, as at a token endpoint: ath is then not checked), in the order
// the package doc lists. Every refusal is an [*Error] naming its Reason.
// The jti is remembered only once every other check passed, so a refused
// proof spends nothing. The authn gate calls it through authn.DPoP; an app
// needs it only where it verifies proofs itself (a token endpoint).
func (v *Verifier) Verify(r *http.Request, accessToken string) (Proof, error) {
	return v.verify(r, accessToken, false, "")
}

// VerifyBound is Verify for a proof presented with an access token bound
// to jkt (its cnf.jkt; "" for a token bound to no key): a proof whose key
// is not jkt's is refused (ReasonBinding, as [Proof.Bind]) before its jti
// is remembered, so that anyone holding some valid token cannot fill the
// replay store with proofs of throw-away keys. The authn gate calls it for
// every token sent with the DPoP scheme.
func (v *Verifier) VerifyBound(r *http.Request, accessToken, jkt string) (Proof, error) {
	return v.verify(r, accessToken, true, jkt)
}

// verify is Verify, and with bound VerifyBound.
func (v *Verifier) verify(r *http.Request, accessToken string, bound bool, jkt string) (Proof, error) {
	raw, err := proofHeader(r)
	if err != nil {
		return Proof{}, err
	}
	seg, ok := split(raw)
	if !ok {
		return Proof{}, refuse(ReasonMalformed)
	}
	key, err := v.key(seg.head)
	if err != nil {
		return Proof{}, err
	}
	if !verifySignature(key, seg.input, seg.sig) {
		return Proof{}, refuse(ReasonSignature)
	}
	c, err := readClaims(seg.payload)
	if err != nil {
		return Proof{}, err
	}
	if c.Method != r.Method {
		return Proof{}, refuse(ReasonMethod)
	}
	if !sameURL(c.URL, r) {
		return Proof{}, refuse(ReasonURL)
	}
	now := v.now()
	iat := time.Unix(int64(c.IssuedAt), 0)
	if iat.Before(now.Add(-v.maxAge)) || iat.After(now.Add(v.ahead)) {
		return Proof{}, refuse(ReasonIssuedAt)
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		want := base64.RawURLEncoding.EncodeToString(sum[:])
		if subtle.ConstantTimeCompare([]byte(c.TokenHash), []byte(want)) != 1 {
			return Proof{}, refuse(ReasonTokenHash)
		}
	}
	var next string
	if v.nonces != nil {
		var valid bool
		if valid, next = v.nonces.check(c.Nonce, now); !valid {
			return Proof{}, &Error{Reason: ReasonNonce, Nonce: v.nonces.current(now)}
		}
	}
	p := Proof{Thumbprint: key.thumbprint, IssuedAt: iat, Nonce: next}
	if bound {
		if err := p.Bind(jkt); err != nil {
			return Proof{}, err
		}
	}
	fresh, err := v.replay.Remember(r.Context(), replayID(p.Thumbprint, c.ID), v.maxAge+v.ahead)
	if err != nil {
		return Proof{}, &Error{Reason: ReasonUnavailable, Err: err}
	}
	if !fresh {
		return Proof{}, refuse(ReasonReplayed)
	}
	return p, nil
}

// key is the header's key, read once per distinct header.
func (v *Verifier) key(head string) (*proofKey, error) {
	if k, ok := v.keys.GetIfPresent(head); ok {
		return k, nil
	}
	k, err := v.readHeader(head)
	if err != nil {
		return nil, err
	}
	v.keys.Set(head, k)
	return k, nil
}

// replayID names a jti by the key that signed it, so that a client cannot
// spend another's jti, in a fixed length whatever the jti's.
func replayID(thumbprint, jti string) string {
	h := sha256.New()
	h.Write([]byte(thumbprint))
	h.Write([]byte{0})
	h.Write([]byte(jti))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}
