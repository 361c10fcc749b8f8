package dpop

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	_ "crypto/sha256" // for crypto.SHA256.New
	_ "crypto/sha512" // for crypto.SHA384.New, crypto.SHA512.New
	"math/big"

	"github.com/go-jose/go-jose/v4"
)

// verifySignature checks sig over the signing input as sent, with the
// standard library's primitives rather than go-jose's JWS object, as
// modules/authn's verifier does and for its reasons: RSA-PSS must pin the
// salt length to the hash length (RFC 7518 §3.5), which go-jose does not,
// and the input must be the segments as sent, never a re-encoding.
// go-jose still parses and validates the JWK.
func verifySignature(k *proofKey, input string, sig []byte) bool {
	if k.alg == jose.EdDSA {
		pub, ok := k.key.(ed25519.PublicKey)
		return ok && len(sig) == ed25519.SignatureSize && ed25519.Verify(pub, []byte(input), sig)
	}
	h := hashOf(k.alg)
	d := h.New()
	d.Write([]byte(input))
	digest := d.Sum(nil)
	switch pub := k.key.(type) {
	case *ecdsa.PublicKey:
		// R and S as fixed-size big-endian halves (RFC 7518 §3.4).
		size := (pub.Curve.Params().BitSize + 7) / 8
		if len(sig) != 2*size {
			return false
		}
		r, s := new(big.Int).SetBytes(sig[:size]), new(big.Int).SetBytes(sig[size:])
		return ecdsa.Verify(pub, digest, r, s)
	case *rsa.PublicKey:
		if k.alg[0] == 'P' {
			return rsa.VerifyPSS(pub, h, digest, sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: h}) == nil
		}
		return rsa.VerifyPKCS1v15(pub, h, digest, sig) == nil
	}
	return false
}

// hashOf is the hash of an ES, RS or PS algorithm, by its size.
func hashOf(alg jose.SignatureAlgorithm) crypto.Hash {
	switch alg[len(alg)-3:] {
	case "384":
		return crypto.SHA384
	case "512":
		return crypto.SHA512
	}
	return crypto.SHA256
}
