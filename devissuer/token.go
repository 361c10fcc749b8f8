package devissuer

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// The grant and token type URIs of RFC 8693.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	typeAccessToken    = "urn:ietf:params:oauth:token-type:access_token"
)

// token is the token endpoint: the one client, by Basic or by form, asks
// for its own token (client_credentials) or exchanges a caller's token
// this issuer signed (RFC 8693), which keeps the caller as sub and names
// the client in act.
func (i *Issuer) token(w http.ResponseWriter, r *http.Request) {
	i.mu.Lock()
	i.tokenRequests++
	i.mu.Unlock()
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the body is not a form")
		return
	}
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != i.ClientID || secret != i.ClientSecret {
		w.Header().Set("WWW-Authenticate", `Basic realm="devissuer"`)
		oauthError(w, http.StatusUnauthorized, "invalid_client", "unknown client or wrong secret")
		return
	}
	t := Token{Subject: id, Audience: r.PostForm.Get("audience"), Scopes: strings.Fields(r.PostForm.Get("scope")), TTL: time.Hour}
	if t.Audience == "" {
		t.Audience = r.PostForm.Get("resource")
	}
	switch r.PostForm.Get("grant_type") {
	case "client_credentials":
	case grantTokenExchange:
		if r.PostForm.Get("subject_token_type") != typeAccessToken {
			oauthError(w, http.StatusBadRequest, "invalid_request", "subject_token_type must be "+typeAccessToken)
			return
		}
		sub, ok := i.subjectOf(r.PostForm.Get("subject_token"))
		if !ok {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "the subject_token is not a live token of this issuer")
			return
		}
		t.Subject = sub
		t.Extra = map[string]any{"act": map[string]any{"sub": id}}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "use client_credentials or "+grantTokenExchange)
		return
	}
	i.answer(w, t)
}

// answer mints t and writes the token response.
func (i *Issuer) answer(w http.ResponseWriter, t Token) {
	tok, err := i.Mint(t)
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", "")
		return
	}
	if t.TTL <= 0 {
		t.TTL = time.Hour
	}
	resp := map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": int(t.TTL / time.Second)}
	if len(t.Scopes) > 0 {
		resp["scope"] = strings.Join(t.Scopes, " ")
	}
	writeJSON(w, http.StatusOK, resp)
}

// subjectOf returns the sub of a token this issuer signed that has not
// expired.
func (i *Issuer) subjectOf(token string) (string, bool) {
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return "", false
	}
	i.mu.RLock()
	keys := append([]jose.JSONWebKey(nil), i.public...)
	i.mu.RUnlock()
	for _, k := range keys {
		var c jwt.Claims
		if parsed.Claims(k.Key, &c) != nil {
			continue
		}
		if c.Issuer != i.URL || c.Subject == "" || c.ValidateWithLeeway(jwt.Expected{Time: time.Now()}, 0) != nil {
			return "", false
		}
		return c.Subject, true
	}
	return "", false
}

// mint answers GET /mint?sub=&scope=&aud=&ttl= with a token response: any
// subject, any scopes, no client authentication. It is what makes this
// issuer a development tool, and why it listens on loopback only.
func (i *Issuer) mint(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	t := Token{Subject: q.Get("sub"), Audience: q.Get("aud"), Scopes: strings.Fields(q.Get("scope")), TTL: time.Hour}
	if t.Subject == "" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "name the token's subject: /mint?sub=alice&scope=read")
		return
	}
	if v := q.Get("ttl"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			oauthError(w, http.StatusBadRequest, "invalid_request", "ttl must be a positive duration such as 30m")
			return
		}
		t.TTL = d
	}
	i.answer(w, t)
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
