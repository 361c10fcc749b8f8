// Package jwsverify checks a JWS signature (RFC 7515, algorithms of RFC
// 7518 and RFC 8037) over the signing input as sent: the one check behind
// an access token's signature (package authn) and a DPoP proof's (package
// dpop).
//
// It uses the standard library's primitives rather than go-jose's JWS
// object, for three reasons: RSA-PSS must pin the salt length to the hash
// length (RFC 7518 §3.5), which go-jose does not; the signing input must
// be the segments as sent, not a re-encoding of them (non-canonical
// base64 must not verify); and a fresh verification should cost the
// signature and little else. The callers choose the key and the
// algorithm; go-jose still parses and validates every JWK.
package jwsverify

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
)

// Ed25519 reports whether sig is pub's EdDSA signature of input (RFC 8037).
func Ed25519(pub ed25519.PublicKey, input string, sig []byte) bool {
	return len(sig) == ed25519.SignatureSize && ed25519.Verify(pub, []byte(input), sig)
}

// RSA reports whether sig is pub's RS (PKCS #1 v1.5) or, with pss, PS
// (RSA-PSS, salt as long as the hash) signature of input with hash h,
// one of SHA-256, SHA-384 and SHA-512.
func RSA(pub *rsa.PublicKey, h crypto.Hash, pss bool, input string, sig []byte) bool {
	var buf [64]byte
	digest := hashInput(&buf, h, input)
	if pss {
		return rsa.VerifyPSS(pub, h, digest, sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: h}) == nil
	}
	return rsa.VerifyPKCS1v15(pub, h, digest, sig) == nil
}

// ECDSA reports whether sig, R and S as fixed-size big-endian halves (RFC
// 7518 §3.4, not ASN.1), is pub's signature of input with hash h.
func ECDSA(pub *ecdsa.PublicKey, h crypto.Hash, input string, sig []byte) bool {
	size := (pub.Curve.Params().BitSize + 7) / 8
	if len(sig) != 2*size {
		return false
	}
	// One scratch value for the digest and the DER signature: whatever of
	// it escapes into crypto/ecdsa is one allocation.
	var scratch struct {
		digest [64]byte
		der    [maxECDSADER]byte
	}
	digest := hashInput(&scratch.digest, h, input)
	der, ok := appendECDSADER(scratch.der[:0], sig[:size], sig[size:])
	return ok && ecdsa.VerifyASN1(pub, digest, der)
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

// hashInput digests the signing input with h, without the allocation of a
// hash.Hash. The copy of the input it hashes could be saved by a
// read-only view of the string's bytes, at about 0.2 % of a verification,
// but that needs package unsafe, which security code avoids.
func hashInput(buf *[64]byte, h crypto.Hash, in string) []byte {
	switch h {
	case crypto.SHA256:
		sum := sha256.Sum256([]byte(in))
		return append(buf[:0], sum[:]...)
	case crypto.SHA384:
		sum := sha512.Sum384([]byte(in))
		return append(buf[:0], sum[:]...)
	default:
		sum := sha512.Sum512([]byte(in))
		return append(buf[:0], sum[:]...)
	}
}
