// Package dpoptest signs DPoP proofs (RFC 9449) for svc's tests: a
// client's key, its thumbprint for a token's cnf.jkt, and proofs of it.
package dpoptest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Key is a client's ES256 DPoP key.
type Key struct {
	signer jose.Signer
	// JKT is the key's RFC 7638 thumbprint, a bound token's cnf.jkt.
	JKT string
	jti atomic.Int64
}

// New generates a key.
func New(t testing.TB) *Key {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	tp, err := (&jose.JSONWebKey{Key: key.Public()}).Thumbprint(crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	return &Key{signer: s, JKT: base64.RawURLEncoding.EncodeToString(tp)}
}

// Proof signs a fresh proof (a new jti, iat now) of a request with method
// htm to htu presenting token; nonce is left out when empty.
func (k *Key) Proof(t testing.TB, htm, htu, token, nonce string) string {
	t.Helper()
	ath := sha256.Sum256([]byte(token))
	claims := map[string]any{"jti": "p-" + strconv.FormatInt(k.jti.Add(1), 10), "htm": htm, "htu": htu,
		"iat": time.Now().Unix(), "ath": base64.RawURLEncoding.EncodeToString(ath[:])}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	b, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := k.signer.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}
