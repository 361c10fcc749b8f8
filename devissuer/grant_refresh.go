package devissuer

import (
	"net/http"
	"slices"
	"strings"
)

// grantRefresh renews the token a refresh token came with, for the
// client it was issued to: the same claims, a new lifetime, scope
// narrowed when asked (never widened), and the next refresh token (each
// is single-use).
func grantRefresh(i *Issuer, c *Client, r *http.Request) (Token, bool, *oauthErr) {
	t, ok := i.tokens.takeRefresh(r.PostForm.Get("refresh_token"))
	if !ok || t.ClientID != c.ID {
		return Token{}, false, badRequest("invalid_grant", "the refresh_token is not a live refresh token of this client (each is used once)")
	}
	if s := r.PostForm.Get("scope"); s != "" {
		for _, sc := range strings.Fields(s) {
			if !slices.Contains(t.Scopes, sc) {
				return Token{}, false, badRequest("invalid_scope", "scope "+sc+" was not granted with the refresh token")
			}
		}
	}
	return t, true, nil
}
