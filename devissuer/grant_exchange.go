package devissuer

import (
	"net/http"
	"slices"
)

// grantExchange is RFC 8693 token exchange: the client trades a caller's
// live token of this issuer (subject_token) for one to another audience
// that keeps the caller as sub, with its acr, amr, auth_time and sid. The
// new token's act names the actor: actor_token's subject when one is
// given, else the client; an act the subject token carried nests inside
// it (§4.1), so the chain of delegation is kept.
func grantExchange(i *Issuer, c *Client, r *http.Request) (Token, bool, *oauthErr) {
	f := r.PostForm
	types := []string{typeAccessToken, typeJWT}
	if !slices.Contains(types, f.Get("subject_token_type")) {
		return Token{}, false, badRequest("invalid_request", "subject_token_type must be "+typeAccessToken+" or "+typeJWT)
	}
	if rt := f.Get("requested_token_type"); rt != "" && rt != typeAccessToken {
		return Token{}, false, badRequest("invalid_request", "requested_token_type must be "+typeAccessToken)
	}
	sub, ok := i.live(f.Get("subject_token"))
	if !ok {
		return Token{}, false, badRequest("invalid_grant", "the subject_token is not a live token of this issuer")
	}
	act := map[string]any{"sub": c.ID}
	if f.Has("actor_token") {
		if !slices.Contains(types, f.Get("actor_token_type")) {
			return Token{}, false, badRequest("invalid_request", "actor_token_type must be "+typeAccessToken+" or "+typeJWT)
		}
		actor, ok := i.live(f.Get("actor_token"))
		if !ok {
			return Token{}, false, badRequest("invalid_grant", "the actor_token is not a live token of this issuer")
		}
		act = map[string]any{"sub": actor["sub"]}
	} else if f.Has("actor_token_type") {
		return Token{}, false, badRequest("invalid_request", "actor_token_type is given without actor_token")
	}
	if prior, ok := sub["act"]; ok {
		act["act"] = prior
	}
	t := onBehalfOf(sub, c)
	t.Extra = map[string]any{"act": act}
	return t, false, nil
}

// onBehalfOf is the token a client gets for the caller whose live token
// carried claims: the caller's subject and authentication (acr, amr,
// auth_time, sid), issued to the client.
func onBehalfOf(claims map[string]any, c *Client) Token {
	t := Token{ClientID: c.ID}
	t.Subject, _ = claims["sub"].(string)
	t.ACR, _ = claims["acr"].(string)
	t.SessionID, _ = claims["sid"].(string)
	if amr, ok := claims["amr"].([]any); ok {
		for _, m := range amr {
			if s, ok := m.(string); ok {
				t.AMR = append(t.AMR, s)
			}
		}
	}
	if at, ok := claims["auth_time"].(float64); ok {
		t.AuthTime = timeOf(at)
	}
	return t
}
