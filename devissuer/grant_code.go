package devissuer

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"time"
)

// codeLifetime is how long an authorization code may be redeemed.
const codeLifetime = time.Minute

// authCode is what an authorization code stands for until redeemed.
type authCode struct {
	clientID, redirectURI, challenge string
	token                            Token
	exp                              time.Time
}

// grantCode redeems an authorization code (RFC 6749 §4.1.3) with its PKCE
// verifier (RFC 7636, S256 only): once, by the client it was issued to,
// with the same redirect_uri. The token is the end user's, with a
// refresh token.
func grantCode(i *Issuer, c *Client, r *http.Request) (Token, bool, *oauthErr) {
	f := r.PostForm
	i.mu.Lock()
	ac, ok := i.codes[f.Get("code")]
	delete(i.codes, f.Get("code"))
	i.mu.Unlock()
	if !ok || time.Now().After(ac.exp) || ac.clientID != c.ID || ac.redirectURI != f.Get("redirect_uri") {
		return Token{}, false, badRequest("invalid_grant", "the code is unknown, used, expired, or was issued to another client or redirect_uri")
	}
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	if subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(ac.challenge)) != 1 {
		return Token{}, false, badRequest("invalid_grant", "the code_verifier does not match the code_challenge (PKCE, S256)")
	}
	return ac.token, true, nil
}
