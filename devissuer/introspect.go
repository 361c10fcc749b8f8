package devissuer

import (
	"mime"
	"net/http"
	"strings"
	"time"
)

// live returns the claims of tok when it is a token of i that has neither
// expired nor been revoked: an opaque token by its value, a JWT by its
// signature and then its jti.
func (i *Issuer) live(tok string) (map[string]any, bool) {
	if tok == "" {
		return nil, false
	}
	if c, ok := i.tokens.get(opaqueKey(tok)); ok {
		return c, true
	}
	c, ok := i.verifyOwn(tok)
	if !ok {
		return nil, false
	}
	jti, _ := c["jti"].(string)
	return i.tokens.get(jtiKey(jti))
}

// introspectionJWT is the media type of a signed answer (RFC 9701).
const introspectionJWT = "application/token-introspection+jwt"

// introspect is RFC 7662 introspection for registered clients: the
// token's claims with active true, token_type DPoP for one bound to a
// DPoP key, or active false alone for a token unknown, expired or revoked.
// A client whose Accept names application/token-introspection+jwt gets
// the answer signed (RFC 9701): iss the issuer, aud the client.
func (i *Issuer) introspect(w http.ResponseWriter, r *http.Request) {
	c, e := i.endpointClient(r, "introspect", "token", "token_type_hint")
	if e != nil {
		e.write(w)
		return
	}
	answer := map[string]any{"active": false}
	if claims, ok := i.live(r.PostForm.Get("token")); ok {
		answer = map[string]any{"active": true, "token_type": "Bearer"}
		for k, v := range claims {
			answer[k] = v
		}
		if cnf, _ := claims["cnf"].(map[string]any); cnf["jkt"] != nil {
			answer["token_type"] = "DPoP"
		}
	}
	if !acceptsSigned(r) {
		writeJSON(w, http.StatusOK, answer)
		return
	}
	signed, err := i.sign("token-introspection+jwt", map[string]any{
		"iss": i.URL, "aud": c.ID, "iat": time.Now().Unix(), "token_introspection": answer,
	})
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", "")
		return
	}
	w.Header().Set("Content-Type", introspectionJWT)
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(signed))
}

func acceptsSigned(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == introspectionJWT {
			return true
		}
	}
	return false
}

// revoke is RFC 7009 revocation: a registered client revokes an access
// token (opaque or JWT) or a refresh token; introspection then answers
// active false. An unknown token is answered 200 too (§2.2).
func (i *Issuer) revoke(w http.ResponseWriter, r *http.Request) {
	if _, e := i.endpointClient(r, "revoke", "token", "token_type_hint"); e != nil {
		e.write(w)
		return
	}
	tok := r.PostForm.Get("token")
	i.tokens.revoke(opaqueKey(tok))
	i.tokens.revokeRefresh(tok)
	if c, ok := i.verifyOwn(tok); ok {
		jti, _ := c["jti"].(string)
		i.tokens.revoke(jtiKey(jti))
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// endpointClient reads the form of a request to the introspection or
// revocation endpoint, refuses a parameter not in params (nor the
// client's), and authenticates a client with credentials.
func (i *Issuer) endpointClient(r *http.Request, endpoint string, params ...string) (*Client, *oauthErr) {
	if e := readBody(r); e != nil {
		return nil, e
	}
	if err := once(r.PostForm); err != nil {
		return nil, badRequest("invalid_request", err.Error())
	}
	if err := knownIn(r.PostForm, params, clientParams); err != nil {
		return nil, badRequest("invalid_request", err.Error())
	}
	c, public, e := i.authenticate(r, endpoint)
	if e != nil {
		return nil, e
	}
	if public {
		return nil, badClient("a public client cannot call " + endpoint)
	}
	if !r.PostForm.Has("token") {
		return nil, badRequest("invalid_request", "name the token: token=...")
	}
	return c, nil
}
