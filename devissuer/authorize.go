package devissuer

import (
	"crypto/rand"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// authorizeParams are what /authorize takes beyond tokenParams: the
// request of RFC 6749 §4.1.1 with PKCE, and the login's answers (sub,
// and login=1 once the form is sent).
var authorizeParams = []string{"response_type", "client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method", "nonce", "prompt", "sub", "login"}

// authorize is the authorization endpoint: a login page that asks for
// nothing (the subject, scopes, acr and amr are chosen by query or by the
// form, pre-filled). With sub in the query it answers the redirect at
// once, for a CLI or a test; without it, it shows the form. The redirect
// carries a code for the token endpoint's authorization_code grant.
func (i *Issuer) authorize(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "the request does not parse", http.StatusBadRequest)
		return
	}
	f := r.Form
	if err := knownIn(f, authorizeParams, tokenParams); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// Errors before the redirect URI is trusted are shown, never redirected
	// (RFC 6749 §4.1.2.1).
	c := i.client(f.Get("client_id"))
	redirect, err := url.Parse(f.Get("redirect_uri"))
	switch {
	case c == nil:
		http.Error(w, "client_id names no registered client", http.StatusBadRequest)
		return
	case err != nil || !loopbackRedirect(redirect):
		http.Error(w, "redirect_uri must be an absolute http(s) URL on loopback (127.0.0.1, ::1 or localhost)", http.StatusBadRequest)
		return
	}
	fail := func(code, desc string) {
		q := redirect.Query()
		q.Set("error", code)
		q.Set("error_description", desc)
		if s := f.Get("state"); s != "" {
			q.Set("state", s)
		}
		redirect.RawQuery = q.Encode()
		http.Redirect(w, r, redirect.String(), http.StatusSeeOther)
	}
	switch {
	case f.Get("response_type") != "code":
		fail("unsupported_response_type", "response_type must be code")
		return
	case f.Get("code_challenge_method") != "S256" || len(f.Get("code_challenge")) < 43:
		fail("invalid_request", "PKCE is required: code_challenge (43+ characters) with code_challenge_method S256")
		return
	}
	if f.Get("sub") == "" {
		i.loginPage(w, f)
		return
	}
	t := Token{Subject: f.Get("sub"), ClientID: c.ID, AuthTime: time.Now(), SessionID: rand.Text(), AMR: []string{"pwd"}}
	if err := readTokenParams(f, &t); err != nil {
		fail("invalid_request", err.Error())
		return
	}
	code := rand.Text()
	i.mu.Lock()
	i.codes[code] = &authCode{clientID: c.ID, redirectURI: f.Get("redirect_uri"), challenge: f.Get("code_challenge"), token: t, exp: time.Now().Add(codeLifetime)}
	i.mu.Unlock()
	q := redirect.Query()
	q.Set("code", code)
	q.Set("iss", i.URL) // RFC 9207
	if s := f.Get("state"); s != "" {
		q.Set("state", s)
	}
	redirect.RawQuery = q.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusSeeOther)
}

// loopbackRedirect accepts only a redirect to this machine: the server
// must not become an open redirector for anyone.
func loopbackRedirect(u *url.URL) bool {
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
		return false
	}
	h := u.Hostname()
	ip := net.ParseIP(h)
	return h == "localhost" || (ip != nil && ip.IsLoopback())
}

var loginTemplate = template.Must(template.New("login").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>devissuer login</title></head>
<body style="font-family: sans-serif; max-width: 32em; margin: 2em auto">
<h1>Development login</h1>
<p>This issuer asks for no password: choose who you are.</p>
<form method="post">
{{range $k, $v := .Hidden}}<input type="hidden" name="{{$k}}" value="{{$v}}">
{{end}}<input type="hidden" name="login" value="1">
<p><label>Subject <input name="sub" value="{{.Sub}}" required></label></p>
<p><label>Scopes <input name="scope" value="{{.Scope}}"></label></p>
<p><label>acr <input name="acr" value="{{.ACR}}"></label></p>
<p><label>amr <input name="amr" value="{{.AMR}}"></label></p>
<p><button type="submit">Sign in</button></p>
</form></body></html>
`))

// loginPage shows the form, the request's parameters carried along.
func (i *Issuer) loginPage(w http.ResponseWriter, f url.Values) {
	hidden := map[string]string{}
	for k, v := range f {
		switch k {
		case "sub", "scope", "acr", "amr", "login":
		default:
			hidden[k] = strings.Join(v, " ")
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = loginTemplate.Execute(w, map[string]any{
		"Hidden": hidden, "Sub": withDefault(f.Get("sub"), "alice"), "Scope": f.Get("scope"),
		"ACR": f.Get("acr"), "AMR": withDefault(f.Get("amr"), "pwd"),
	})
}
