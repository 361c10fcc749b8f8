package bearer

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"fmt"
	"math"
	"sync/atomic"
)

// minRSABits is the smallest RSA modulus accepted (RFC 7518 §3.3 requires
// 2048 bits).
const minRSABits = 2048

// maxRSABits is the largest RSA modulus accepted. Verifying grows with the
// square of the modulus: a 4096-bit key costs about four times an ES256
// verification, an 8192-bit one about fifteen, more than the verifier lets
// any unsigned input cost (10 times); providers sign with 2048 to 4096.
const maxRSABits = 4096

// maxKidlessTries bounds how many keys a token is tried against, so a
// large key set cannot multiply the cost of a forged token. At most one of
// them may be expensive (see heldKey.expensive).
const maxKidlessTries = 4

// expensiveRSABits is the modulus from which an RSA key counts as
// expensive: a 3072-bit verification costs about what an ES256 one does,
// a 4096-bit one several times more.
const expensiveRSABits = 3072

// heldKey is one public signing key.
type heldKey struct {
	id     string // kid; "" when the key has none
	alg    string // the JWK's declared alg; "" when it declares none
	family keyFamily
	rsa    *rsa.PublicKey
	ec     *ecdsa.PublicKey
	ed     ed25519.PublicKey
	// expensive marks a key whose verification costs several times an
	// ES256 one (P-384, P-521, RSA of 3072 bits or more): a token is tried
	// against at most one such key.
	expensive bool
	// retired is set when the key leaves the key set, which drops the
	// cached verifications it made.
	retired atomic.Bool
}

// newHeldKey checks that pub is a public key svc can verify with.
func newHeldKey(pub crypto.PublicKey, id, declaredAlg string) (*heldKey, error) {
	k := &heldKey{id: id}
	switch key := pub.(type) {
	case *rsa.PublicKey:
		if err := checkRSAKey(key); err != nil {
			return nil, err
		}
		k.family, k.rsa = familyRSA, key
		k.expensive = key.N.BitLen() >= expensiveRSABits
	case *ecdsa.PublicKey:
		if err := checkECKey(key); err != nil {
			return nil, err
		}
		k.family, k.ec = familyEC, key
		// Go's P-384 and P-521 verify about 10 and 40 times slower than
		// its P-256.
		k.expensive = key.Curve != elliptic.P256()
	case ed25519.PublicKey:
		if len(key) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("Ed25519 key of %d bytes", len(key))
		}
		k.family, k.ed = familyEd25519, key
	default:
		return nil, fmt.Errorf("unsupported key type %T (want *rsa.PublicKey, *ecdsa.PublicKey or ed25519.PublicKey)", pub)
	}
	if declaredAlg != "" {
		a, ok := algByName(declaredAlg)
		if !ok || !k.fitsFamily(a) {
			return nil, fmt.Errorf("key declares alg %s, which svc does not accept for its type", quoteSetting(declaredAlg))
		}
		k.alg = declaredAlg
	}
	return k, nil
}

// checkRSAKey refuses an RSA key no signature can verify under, so a
// malformed key is a configuration problem rather than a refusal of every
// token as a forgery: a modulus that is missing, not positive or even, of
// fewer than 2048 or more than 4096 bits, or a public exponent that is not
// an odd number of at least 3 and at most 2^31-1 (crypto/rsa refuses a
// larger one at every verification, which would make each token a
// forgery), or a modulus with the ROCA fingerprint (see roca.go), which
// anyone can factor.
func checkRSAKey(key *rsa.PublicKey) error {
	switch {
	case key == nil || key.N == nil:
		return fmt.Errorf("empty RSA key (no modulus n)")
	case key.N.Sign() <= 0:
		return fmt.Errorf("RSA modulus n is not positive")
	case key.N.Bit(0) == 0:
		return fmt.Errorf("RSA modulus n is even")
	case key.N.BitLen() < minRSABits:
		return fmt.Errorf("RSA key of %d bits, below %d", key.N.BitLen(), minRSABits)
	case key.N.BitLen() > maxRSABits:
		return fmt.Errorf("RSA key of %d bits, above %d", key.N.BitLen(), maxRSABits)
	case key.E < 3 || key.E%2 == 0 || key.E > math.MaxInt32:
		return fmt.Errorf("RSA public exponent e=%d is not an odd number between 3 and 2^31-1", key.E)
	case hasROCAFingerprint(key.N):
		return fmt.Errorf("RSA modulus has the ROCA fingerprint (CVE-2017-15361): it can be factored, so anyone can sign with it; replace the key")
	}
	return nil
}

// checkECKey refuses an EC key that is empty, on a curve svc does not
// accept, or whose point is missing or not on its curve.
func checkECKey(key *ecdsa.PublicKey) error {
	if key == nil || key.Curve == nil {
		return fmt.Errorf("empty EC key (no curve)")
	}
	switch key.Curve {
	case elliptic.P256(), elliptic.P384(), elliptic.P521():
	default:
		return fmt.Errorf("EC key on unsupported curve %s", key.Curve.Params().Name)
	}
	//lint:ignore SA1019 a key built from raw coordinates can lack them; this is the check that refuses it
	if key.X == nil || key.Y == nil {
		return fmt.Errorf("EC key without a point (x or y missing)")
	}
	// ECDH parses the point with crypto/ecdh, which refuses coordinates
	// out of range and points off the curve or at infinity.
	if _, err := key.ECDH(); err != nil {
		return fmt.Errorf("EC point is not on curve %s", key.Curve.Params().Name)
	}
	return nil
}

func (k *heldKey) fitsFamily(a alg) bool {
	info := &algs[a]
	return k.family == info.family && (info.family != familyEC || k.ec.Curve == info.curve)
}

// public returns the key as crypto.PublicKey.
func (k *heldKey) public() crypto.PublicKey {
	switch k.family {
	case familyRSA:
		return k.rsa
	case familyEC:
		return k.ec
	default:
		return k.ed
	}
}

// same reports whether k and o are the same key under the same id.
func (k *heldKey) same(o *heldKey) bool {
	if k.id != o.id || k.alg != o.alg || k.family != o.family {
		return false
	}
	type equaler interface{ Equal(crypto.PublicKey) bool }
	e, ok := k.public().(equaler)
	return ok && e.Equal(o.public())
}

// keySet is an immutable set of keys; a refresh installs a new one.
type keySet struct {
	keys []*heldKey
	byID map[string][]*heldKey
	// held is true for keys given in code (KeySet): their ids are not the
	// provider's, so the kid of a token is only a hint.
	held bool
}

func newKeySet(keys []*heldKey, held bool) *keySet {
	s := &keySet{keys: keys, byID: make(map[string][]*heldKey, len(keys)), held: held}
	for _, k := range keys {
		if k.id != "" {
			s.byID[k.id] = append(s.byID[k.id], k)
		}
	}
	return s
}

// KeySet returns a verifier that trusts the public keys given here and
// fetches nothing ("held keys"). Each key is a *rsa.PublicKey (2048 to
// 4096 bits, odd modulus, odd exponent from 3 to 2^31-1), an *ecdsa.PublicKey
// whose point is on P-256, P-384 or P-521, or an ed25519.PublicKey, as
// parsed by crypto/x509 from PEM. A key that is none of these is a
// *ConfigError naming it (keys[i]) and what is wrong with it. Held keys carry no
// kid: a token's kid is matched against each key's RFC 7638 SHA-256
// thumbprint, and otherwise every key whose type fits the token's alg is
// tried in the order given: at most four, and at most one expensive key
// (P-384, P-521, RSA of 3072 bits or more), so put the key that signs
// most tokens first.
//
// Tokens must carry `iss` equal to issuer and an `aud` containing audience.
// Nothing panics on bad input: an empty issuer or audience, an unsupported
// key or an invalid option is returned as a *ConfigError from Open and from
// every Verify. The keys are usable at once, so Verify works even before
// Open.
func KeySet(issuer, audience string, keys []crypto.PublicKey, opts ...VerifierOption) *JWTVerifier {
	v := newVerifier(issuer, audience, opts)
	if issuer == "" {
		v.cfg.refuse("issuer", "is empty; pass the issuer the tokens name in iss")
	}
	held := make([]*heldKey, 0, len(keys))
	for i, pub := range keys {
		k, err := newHeldKey(pub, "", "")
		if err != nil {
			v.cfg.refuse(fmt.Sprintf("keys[%d]", i), err.Error())
			continue
		}
		k.id = thumbprint(k)
		held = append(held, k)
	}
	if len(keys) == 0 {
		v.cfg.refuse("keys", "is empty; pass at least one public key")
	}
	v.finish()
	if v.err == nil {
		v.set.Store(newKeySet(held, true))
		v.keys = &staticKeys{}
	}
	return v
}
