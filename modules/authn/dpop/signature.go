package dpop

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"

	"github.com/go-jose/go-jose/v4"

	"github.com/svckit/svc/modules/authn/internal/jwsverify"
)

// verifySignature checks sig over the signing input as sent with the one
// check modules/authn's verifier uses too (jwsverify: RSA-PSS salt pinned
// to the hash length, the segments as sent). readHeader made sure the key
// fits the algorithm (fits).
func verifySignature(k *proofKey, input string, sig []byte) bool {
	switch pub := k.key.(type) {
	case ed25519.PublicKey:
		return k.alg == jose.EdDSA && jwsverify.Ed25519(pub, input, sig)
	case *ecdsa.PublicKey:
		return jwsverify.ECDSA(pub, hashOf(k.alg), input, sig)
	case *rsa.PublicKey:
		return jwsverify.RSA(pub, hashOf(k.alg), k.alg[0] == 'P', input, sig)
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
