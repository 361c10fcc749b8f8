package devissuer

import (
	"net/http"
)

// mintParams are what /mint takes beyond tokenParams: the subject, the
// client named in client_id, and a binding by thumbprint for a client
// that signs its own proofs (jkt) or presents its own certificate
// (x5t#S256).
var mintParams = []string{"sub", "client_id", "jkt", "x5t#S256", "refresh"}

// mint answers GET /mint?sub=alice&scope=read+write (and any of
// tokenParams: acr, amr, auth_time, sid, extra, ttl, format, typ,
// audience) with a token response: any subject, any claims, no client
// authentication. It is what makes this issuer a development tool, and
// why it listens on loopback only. A DPoP proof of GET /mint binds the
// token to its key, as jkt= does; refresh=true adds a refresh token for
// client_id (default the issuer's first client). A parameter it does not
// understand is refused, never dropped.
func (i *Issuer) mint(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := knownIn(q, mintParams, tokenParams); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	if err := once(q); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	t := Token{Subject: q.Get("sub"), ClientID: withDefault(q.Get("client_id"), i.ClientID), JKT: q.Get("jkt"), X5T: q.Get("x5t#S256")}
	if t.Subject == "" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "name the token's subject: /mint?sub=alice&scope=read")
		return
	}
	if err := readTokenParams(q, &t); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	jkt, e := i.dpopProof(r, "mint")
	if e != nil {
		e.write(w)
		return
	}
	if jkt != "" {
		t.JKT = jkt
	}
	if t.X5T == "" {
		t.X5T = certThumbprint(r)
	}
	switch q.Get("refresh") {
	case "", "false":
		i.answer(w, t, false)
	case "true":
		i.answer(w, t, true)
	default:
		oauthError(w, http.StatusBadRequest, "invalid_request", "refresh is true or false")
	}
}
