package devissuer

import "net/http"

// grantJWTBearer is the JWT bearer grant of RFC 7523 §2.1, which the
// on-behalf-of flow uses.
const grantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// grantOnBehalfOf is the on-behalf-of flow as Microsoft Entra ID runs it
// (oauthclient.TokenExchangeOnBehalfOf): the JWT bearer grant with
// requested_token_use=on_behalf_of and the caller's live token of this
// issuer as assertion. The new token keeps the caller as sub, with its
// authentication, and names the client in azp; no act, as Entra sends
// none.
func grantOnBehalfOf(i *Issuer, c *Client, r *http.Request) (Token, bool, *oauthErr) {
	if r.PostForm.Get("requested_token_use") != "on_behalf_of" {
		return Token{}, false, badRequest("invalid_request", "this issuer takes the JWT bearer grant for on-behalf-of only: send requested_token_use=on_behalf_of")
	}
	caller, ok := i.live(r.PostForm.Get("assertion"))
	if !ok {
		return Token{}, false, badRequest("invalid_grant", "the assertion is not a live token of this issuer")
	}
	t := onBehalfOf(caller, c)
	t.Extra = map[string]any{"azp": c.ID}
	return t, false, nil
}
