package authn

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"math/big"
)

// The signature is checked with the standard library's primitives over the
// token's own bytes rather than through go-jose's JWS object, for three
// reasons: RSA-PSS must pin the salt length to the hash length (RFC 7518
// §3.5), which go-jose does not; the signing input must be the segments as
// sent, not a re-encoding of them (non-canonical base64 must not verify);
// and a fresh verification should cost the signature and little else.
// go-jose still parses and validates every JWK.

// alg is one accepted JWS algorithm.
type alg uint8

const (
	algRS256 alg = iota
	algRS384
	algRS512
	algPS256
	algPS384
	algPS512
	algES256
	algES384
	algES512
	algEdDSA
	algCount
)

// keyFamily is the key type an algorithm needs.
type keyFamily uint8

const (
	familyRSA keyFamily = iota + 1
	familyEC
	familyEd25519
)

type algInfo struct {
	name   string
	family keyFamily
	hash   crypto.Hash
	pss    bool
	curve  elliptic.Curve // ES only
}

var algs = [algCount]algInfo{
	algRS256: {name: "RS256", family: familyRSA, hash: crypto.SHA256},
	algRS384: {name: "RS384", family: familyRSA, hash: crypto.SHA384},
	algRS512: {name: "RS512", family: familyRSA, hash: crypto.SHA512},
	algPS256: {name: "PS256", family: familyRSA, hash: crypto.SHA256, pss: true},
	algPS384: {name: "PS384", family: familyRSA, hash: crypto.SHA384, pss: true},
	algPS512: {name: "PS512", family: familyRSA, hash: crypto.SHA512, pss: true},
	algES256: {name: "ES256", family: familyEC, hash: crypto.SHA256, curve: elliptic.P256()},
	algES384: {name: "ES384", family: familyEC, hash: crypto.SHA384, curve: elliptic.P384()},
	algES512: {name: "ES512", family: familyEC, hash: crypto.SHA512, curve: elliptic.P521()},
	algEdDSA: {name: "EdDSA", family: familyEd25519},
}

// algByName maps a header's alg to an accepted algorithm; the names are
// case-sensitive (RFC 7515 §4.1.1), so "rs256" is unknown.
func algByName(name string) (alg, bool) {
	switch name {
	case "RS256":
		return algRS256, true
	case "RS384":
		return algRS384, true
	case "RS512":
		return algRS512, true
	case "PS256":
		return algPS256, true
	case "PS384":
		return algPS384, true
	case "PS512":
		return algPS512, true
	case "ES256":
		return algES256, true
	case "ES384":
		return algES384, true
	case "ES512":
		return algES512, true
	case "EdDSA":
		return algEdDSA, true
	}
	return 0, false
}

// algSet is a set of accepted algorithms as a bit mask.
type algSet uint16

func (s algSet) has(a alg) bool { return s&(1<<a) != 0 }

func allAlgs() algSet { return 1<<algCount - 1 }

// fits reports whether key k may verify algorithm a: the key's type (and
// curve) must be the algorithm's, and a key that declares its own alg is
// used for that alg only.
func (k *heldKey) fits(a alg) bool {
	info := &algs[a]
	if k.family != info.family {
		return false
	}
	if info.family == familyEC && k.ec.Curve != info.curve {
		return false
	}
	return k.alg == "" || k.alg == info.name
}

// verifySignature checks sig over signingInput with key k, which must fit a.
func verifySignature(a alg, k *heldKey, signingInput string, sig []byte) bool {
	info := &algs[a]
	if info.family == familyEd25519 {
		return len(sig) == ed25519.SignatureSize && ed25519.Verify(k.ed, []byte(signingInput), sig)
	}
	var buf [64]byte
	digest := hashInput(&buf, info.hash, signingInput)
	switch info.family {
	case familyRSA:
		if info.pss {
			return rsa.VerifyPSS(k.rsa, info.hash, digest, sig,
				&rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: info.hash}) == nil
		}
		return rsa.VerifyPKCS1v15(k.rsa, info.hash, digest, sig) == nil
	case familyEC:
		// JWS ECDSA signatures are R and S as fixed-size big-endian halves
		// (RFC 7518 §3.4), not ASN.1.
		size := (k.ec.Curve.Params().BitSize + 7) / 8
		if len(sig) != 2*size {
			return false
		}
		r := new(big.Int).SetBytes(sig[:size])
		s := new(big.Int).SetBytes(sig[size:])
		return ecdsa.Verify(k.ec, digest, r, s)
	}
	return false
}

// hashInput digests the signing input with the algorithm's hash, without
// the allocation of a hash.Hash.
func hashInput(buf *[64]byte, h crypto.Hash, input string) []byte {
	switch h {
	case crypto.SHA256:
		sum := sha256.Sum256([]byte(input))
		return append(buf[:0], sum[:]...)
	case crypto.SHA384:
		sum := sha512.Sum384([]byte(input))
		return append(buf[:0], sum[:]...)
	default:
		sum := sha512.Sum512([]byte(input))
		return append(buf[:0], sum[:]...)
	}
}
