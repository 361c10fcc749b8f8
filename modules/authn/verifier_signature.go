package authn

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
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

// defaultAlgs is the allow-list without Algorithms: every algorithm but
// ES512. One P-521 verification costs about 30 times an ES256 one, so a
// forged ES512 token would cost more than the verifier lets any unsigned
// input cost (10 times a fresh ES256 verification); an app whose provider
// signs with ES512 names it in Algorithms.
func defaultAlgs() algSet { return allAlgs() &^ (1 << algES512) }

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
	// One copy of the signing input for the hash or ed25519 to read: a
	// read-only view of the string's bytes would save it, at about 0.2 % of
	// a verification, but needs package unsafe, which security code avoids.
	input := []byte(signingInput)
	if info.family == familyEd25519 {
		return len(sig) == ed25519.SignatureSize && ed25519.Verify(k.ed, input, sig)
	}
	// One scratch value for the digest and the DER signature: whatever of
	// it escapes into crypto/ecdsa or crypto/rsa is one allocation.
	var scratch struct {
		digest [64]byte
		der    [maxECDSADER]byte
	}
	digest := hashInput(&scratch.digest, info.hash, input)
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
		der, ok := appendECDSADER(scratch.der[:0], sig[:size], sig[size:])
		return ok && ecdsa.VerifyASN1(k.ec, digest, der)
	}
	return false
}

// maxECDSADER is the longest DER signature appendECDSADER writes: a
// SEQUENCE with a two-byte length around two INTEGERs of up to 66 bytes
// (P-521) plus a sign byte each.
const maxECDSADER = 3 + 2*(2+1+66)

// appendECDSADER appends the ASN.1 DER form of the ECDSA signature (r, s),
// given as unsigned big-endian bytes, to dst. It is the encoding
// ecdsa.Verify makes of its big.Int arguments before it calls
// ecdsa.VerifyASN1, written here without big.Int or a cryptobyte.Builder,
// which cost a fresh verification about ten allocations. ok is false when
// r or s is zero (ecdsa.Verify refuses those) or longer than a P-521
// scalar.
func appendECDSADER(dst, r, s []byte) (der []byte, ok bool) {
	r, s = trimLeadingZeros(r), trimLeadingZeros(s)
	if len(r) == 0 || len(s) == 0 || len(r) > 66 || len(s) > 66 {
		return nil, false
	}
	body := derIntLen(r) + derIntLen(s)
	dst = append(dst, 0x30) // SEQUENCE
	if body >= 0x80 {
		dst = append(dst, 0x81) // long form: one length byte follows
	}
	dst = append(dst, byte(body))
	return appendDERInt(appendDERInt(dst, r), s), true
}

func trimLeadingZeros(b []byte) []byte {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	return b
}

// derIntLen is the encoded length of a positive INTEGER: tag, length, a
// zero byte when the top bit is set (or the value would read as
// negative), then the value.
func derIntLen(v []byte) int {
	if v[0]&0x80 != 0 {
		return 3 + len(v)
	}
	return 2 + len(v)
}

func appendDERInt(dst, v []byte) []byte {
	if v[0]&0x80 != 0 {
		dst = append(dst, 0x02, byte(len(v)+1), 0)
	} else {
		dst = append(dst, 0x02, byte(len(v)))
	}
	return append(dst, v...)
}

// hashInput digests the signing input with the algorithm's hash, without
// the allocation of a hash.Hash.
func hashInput(buf *[64]byte, h crypto.Hash, in []byte) []byte {
	switch h {
	case crypto.SHA256:
		sum := sha256.Sum256(in)
		return append(buf[:0], sum[:]...)
	case crypto.SHA384:
		sum := sha512.Sum384(in)
		return append(buf[:0], sum[:]...)
	default:
		sum := sha512.Sum512(in)
		return append(buf[:0], sum[:]...)
	}
}
