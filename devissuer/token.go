package devissuer

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Token is what Mint puts in a token beyond the defaults (iss, iat, exp,
// jti, and tid for a Tenant's tokens).
type Token struct {
	Subject  string
	Audience string        // default the issuer's Audience
	Scopes   []string      // the `scope` claim, space-separated
	TTL      time.Duration // default 1h
	// ClientID is the `client_id` claim (RFC 9068 §2.2): the client the
	// token was issued to.
	ClientID string
	// ACR, AMR, AuthTime and SessionID are the `acr`, `amr`, `auth_time`
	// and `sid` claims of an end user's authentication, for step-up
	// (authn.RequireACR, authn.MaxAge) and sign-out.
	ACR       string
	AMR       []string
	AuthTime  time.Time
	SessionID string
	// JKT binds the token to a DPoP key (cnf.jkt, RFC 9449 §6): the RFC
	// 7638 SHA-256 thumbprint of its public key, base64url. The token
	// endpoint answers token_type DPoP for such a token.
	JKT string
	// X5T binds the token to a client certificate (cnf.x5t#S256, RFC 8705
	// §3): the certificate's SHA-256 thumbprint, base64url.
	X5T string
	// Opaque makes a random string instead of a JWT, known only to the
	// issuer's introspection endpoint.
	Opaque bool
	// Type is the JWT's typ header: default at+jwt (RFC 9068); "JWT" for
	// a provider that does not follow RFC 9068.
	Type string
	// Extra claims, set last (they override the claims above).
	Extra map[string]any
}

// ttl is the token's lifetime, the default applied.
func (t Token) ttl() time.Duration {
	if t.TTL <= 0 {
		return time.Hour
	}
	return t.TTL
}

// Mint signs a JWT access token (ES256, typ at+jwt unless Type says
// otherwise), or makes an opaque one when t.Opaque is set. Either is
// known to introspection and revocation.
func (i *Issuer) Mint(t Token) (string, error) {
	claims := i.claims(t)
	exp := time.Unix(claims["exp"].(int64), 0)
	held, err := asJSON(claims) // introspection answers what a JWT would carry
	if err != nil {
		return "", fmt.Errorf("devissuer: the claims do not encode as JSON: %w", err)
	}
	if t.Opaque {
		tok := "dev_" + rand.Text() + rand.Text()
		i.tokens.put(opaqueKey(tok), held, exp)
		return tok, nil
	}
	tok, err := i.sign(withDefault(t.Type, "at+jwt"), claims)
	if err != nil {
		return "", err
	}
	i.tokens.put(jtiKey(claims["jti"].(string)), held, exp)
	return tok, nil
}

// claims are the claims of t, as Mint signs them.
func (i *Issuer) claims(t Token) map[string]any {
	now := time.Now()
	c := map[string]any{
		"iss": i.URL,
		"sub": t.Subject,
		"aud": withDefault(t.Audience, i.Audience),
		"iat": now.Unix(),
		"exp": now.Add(t.ttl()).Unix(),
		"jti": rand.Text(),
	}
	set := func(name, v string) {
		if v != "" {
			c[name] = v
		}
	}
	set("scope", strings.Join(t.Scopes, " "))
	set("client_id", t.ClientID)
	set("acr", t.ACR)
	set("sid", t.SessionID)
	set("tid", i.tenant)
	if len(t.AMR) > 0 {
		c["amr"] = t.AMR
	}
	if !t.AuthTime.IsZero() {
		c["auth_time"] = t.AuthTime.Unix()
	}
	if t.JKT != "" || t.X5T != "" {
		cnf := map[string]any{}
		if t.JKT != "" {
			cnf["jkt"] = t.JKT
		}
		if t.X5T != "" {
			cnf["x5t#S256"] = t.X5T
		}
		c["cnf"] = cnf
	}
	for k, v := range t.Extra {
		c[k] = v
	}
	return c
}

// tokenResponse is the token endpoint's answer (RFC 6749 §5.1).
type tokenResponse struct {
	AccessToken     string `json:"access_token"`
	TokenType       string `json:"token_type"`
	ExpiresIn       int    `json:"expires_in"`
	Scope           string `json:"scope,omitempty"`
	RefreshToken    string `json:"refresh_token,omitempty"`
	IssuedTokenType string `json:"issued_token_type,omitempty"`
}

// issue mints t and its answer; with refresh, a refresh token that
// renews it (see grantRefresh).
func (i *Issuer) issue(t Token, refresh bool) (tokenResponse, error) {
	tok, err := i.Mint(t)
	if err != nil {
		return tokenResponse{}, err
	}
	resp := tokenResponse{AccessToken: tok, TokenType: "Bearer", ExpiresIn: int(t.ttl() / time.Second), Scope: strings.Join(t.Scopes, " ")}
	if t.JKT != "" {
		resp.TokenType = "DPoP"
	}
	if refresh {
		resp.RefreshToken = i.tokens.putRefresh(t)
	}
	return resp, nil
}

// answer issues t and writes the answer, or a server_error.
func (i *Issuer) answer(w http.ResponseWriter, t Token, refresh bool) {
	resp, err := i.issue(t, refresh)
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", "")
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func oauthError(w http.ResponseWriter, status int, code, description string) {
	body := map[string]string{"error": code}
	if description != "" {
		body["error_description"] = description
	}
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// asJSON is c as a JSON decoder gives it back (numbers float64, arrays
// []any), so that opaque and JWT claims read alike.
func asJSON(c map[string]any) (map[string]any, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(b, &out)
}

func timeOf(unix float64) time.Time { return time.Unix(int64(unix), 0) }

func opaqueKey(tok string) string { return "token " + tok }
func jtiKey(jti string) string    { return "jti " + jti }

func joinQuoted(s []string) string {
	q := make([]string, len(s))
	for n, v := range s {
		q[n] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}
