package devissuer

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// signingKey is one ES256 key of an issuer.
type signingKey struct {
	kid  string
	priv *ecdsa.PrivateKey
}

// Rotate makes a new signing key: tokens are signed with it from now on,
// and the keys before it stay in the JWKS, so that tokens already issued
// verify while a service's verifier fetches the new key. POST /rotate
// does the same (with ?retire=true, as Retire after it).
func (i *Issuer) Rotate() error {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("devissuer: key: %w", err)
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	i.mu.Lock()
	defer i.mu.Unlock()
	i.keys = append([]signingKey{{kid: "dev-" + hex.EncodeToString(id[:]), priv: priv}}, i.keys...)
	return nil
}

// Retire takes every key but the current one out of the JWKS: tokens
// they signed stop verifying, as after a provider's rotation completes.
func (i *Issuer) Retire() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.keys = i.keys[:1]
}

// KeyID is the kid of the key signing now.
func (i *Issuer) KeyID() string {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.keys[0].kid
}

// rotate is POST /rotate[?retire=true]: a new key, the JWKS with it.
func (i *Issuer) rotate(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := knownOnly(q, "retire"); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	if err := i.Rotate(); err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", "")
		return
	}
	if q.Get("retire") == "true" {
		i.Retire()
	}
	i.jwks(w, r)
}

func (i *Issuer) publicKeys() []jose.JSONWebKey {
	i.mu.RLock()
	defer i.mu.RUnlock()
	out := make([]jose.JSONWebKey, len(i.keys))
	for n, k := range i.keys {
		out[n] = jose.JSONWebKey{Key: &k.priv.PublicKey, KeyID: k.kid, Algorithm: "ES256", Use: "sig"}
	}
	return out
}

func (i *Issuer) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: i.publicKeys()})
}

// sign signs claims as a JWT of type typ with the current key.
func (i *Issuer) sign(typ string, claims map[string]any) (string, error) {
	i.mu.RLock()
	k := i.keys[0]
	i.mu.RUnlock()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.priv},
		(&jose.SignerOptions{}).WithType(jose.ContentType(typ)).WithHeader("kid", k.kid))
	if err != nil {
		return "", fmt.Errorf("devissuer: signer: %w", err)
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}

// verifyOwn returns the claims of a JWT one of i's published keys signed,
// whatever its expiry (the caller judges that).
func (i *Issuer) verifyOwn(token string) (map[string]any, bool) {
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return nil, false
	}
	for _, k := range i.publicKeys() {
		var c map[string]any
		if parsed.Claims(k.Key, &c) == nil {
			return c, c["iss"] == i.URL
		}
	}
	return nil, false
}
