package devissuer

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
)

// grant is one grant type of the token endpoint: the parameters it takes
// beyond the client's and tokenParams, and the token it grants c (before
// tokenParams shape it), with whether a refresh token renews it.
type grant struct {
	params []string
	issue  func(i *Issuer, c *Client, r *http.Request) (Token, bool, *oauthErr)
}

// The grant and token type URIs of RFC 8693.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	typeAccessToken    = "urn:ietf:params:oauth:token-type:access_token"
	typeJWT            = "urn:ietf:params:oauth:token-type:jwt"
)

// grants are the token endpoint's grant types, by grant_type.
var grants = map[string]grant{
	"client_credentials": {nil, grantClientCredentials},
	grantTokenExchange:   {[]string{"subject_token", "subject_token_type", "actor_token", "actor_token_type", "requested_token_type"}, grantExchange},
	"refresh_token":      {[]string{"refresh_token"}, grantRefresh},
	"authorization_code": {[]string{"code", "redirect_uri", "code_verifier"}, grantCode},
	grantJWTBearer:       {[]string{"assertion", "requested_token_use"}, grantOnBehalfOf},
}

// grantTypes lists the grant types, for discovery and errors.
var grantTypes = []string{"client_credentials", grantTokenExchange, "refresh_token", "authorization_code", grantJWTBearer}

// token is the token endpoint: a registered client, authenticated by any
// of its methods, asks for a token by one of the grants; a DPoP proof
// binds it to the proof's key, and a client certificate on the mTLS
// listener to the certificate.
func (i *Issuer) token(w http.ResponseWriter, r *http.Request) {
	i.mu.Lock()
	i.tokenRequests++
	i.mu.Unlock()
	if e := i.tokenGrant(w, r); e != nil {
		e.write(w)
	}
}

func (i *Issuer) tokenGrant(w http.ResponseWriter, r *http.Request) *oauthErr {
	if e := readBody(r); e != nil {
		return e
	}
	if err := once(r.PostForm); err != nil {
		return badRequest("invalid_request", err.Error())
	}
	c, public, e := i.authenticate(r, "token")
	if e != nil {
		return e
	}
	name := r.PostForm.Get("grant_type")
	g, ok := grants[name]
	if !ok {
		return badRequest("unsupported_grant_type", "grant_type is one of "+joinQuoted(grantTypes))
	}
	if public && name != "authorization_code" {
		return badClient("a public client (no credentials) may only use the authorization_code grant with PKCE")
	}
	if err := knownIn(r.PostForm, g.params, clientParams, tokenParams, []string{"grant_type"}); err != nil {
		return badRequest("invalid_request", err.Error())
	}
	jkt, e := i.dpopProof(r, "token")
	if e != nil {
		return e
	}
	t, refresh, e := g.issue(i, c, r)
	if e != nil {
		return e
	}
	t.Opaque = c.OpaqueTokens
	if err := readTokenParams(r.PostForm, &t); err != nil {
		return badRequest("invalid_request", err.Error())
	}
	t.JKT = jkt
	t.X5T = certThumbprint(r)
	resp, err := i.issue(t, refresh)
	if err != nil {
		return &oauthErr{status: http.StatusInternalServerError, code: "server_error"}
	}
	if name == grantTokenExchange {
		resp.IssuedTokenType = typeAccessToken
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// certThumbprint is the cnf.x5t#S256 of the client certificate of r (RFC
// 8705 §3.1), "" without one.
func certThumbprint(r *http.Request) string {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return ""
	}
	sum := sha256.Sum256(r.TLS.PeerCertificates[0].Raw)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// grantClientCredentials grants the client a token of its own.
func grantClientCredentials(_ *Issuer, c *Client, _ *http.Request) (Token, bool, *oauthErr) {
	return Token{Subject: c.ID, ClientID: c.ID}, false, nil
}

// readBody parses the form of a POST and refuses a query: its parameters
// belong in the body (RFC 6749 §3.2), and ignoring them would drop them.
func readBody(r *http.Request) *oauthErr {
	if r.URL.RawQuery != "" {
		return badRequest("invalid_request", "send the parameters in the form body, not in the query")
	}
	if err := r.ParseForm(); err != nil {
		return badRequest("invalid_request", "the body is not a form")
	}
	return nil
}
