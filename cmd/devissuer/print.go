package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/svckit/svc/devissuer"
)

// printStart prints the settings to paste (more: those of the other
// issuers and the certificates), a token of each kind per
// subject, and a curl line per grant and endpoint. The line starting
// "# more tokens" comes last.
func printStart(out io.Writer, iss *devissuer.Issuer, s settings, more string) error {
	fmt.Fprintf(out, "# development issuer at %s — never expose it. Paste into the service's shell:\n", iss.URL)
	fmt.Fprint(out, iss.Env())
	fmt.Fprint(out, more)
	scopes := strings.Fields(s.scopes)
	for _, sub := range splitList(s.subjects) {
		name := envName(sub)
		for _, k := range []struct {
			prefix, what string
			tok          devissuer.Token
		}{
			{"TOKEN_", "a JWT access token", devissuer.Token{Subject: sub, Scopes: scopes, TTL: s.ttl}},
			{"OPAQUE_TOKEN_", "an opaque token (the service needs bearer.Introspect)", devissuer.Token{Subject: sub, Scopes: scopes, TTL: s.ttl, Opaque: true}},
			{"MFA_TOKEN_", "a step-up token (acr mfa, amr pwd otp, auth_time now)", devissuer.Token{Subject: sub, Scopes: scopes, TTL: s.ttl, ACR: "mfa", AMR: []string{"pwd", "otp"}, AuthTime: time.Now()}},
		} {
			tok, err := iss.Mint(k.tok)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "# %s for %s (scopes %q, valid %v):\nexport %s%s=%s\n", k.what, sub, s.scopes, s.ttl, k.prefix, name, tok)
		}
	}
	fmt.Fprint(out, curlLines(iss, splitList(s.subjects)))
	fmt.Fprintf(out, "# more tokens: curl '%s/mint?sub=bob&scope=read+write' (also acr=, amr=, auth_time=, sid=, extra={json}, format=opaque, jkt=, refresh=true)\n", iss.URL)
	return nil
}

// curlLines are a curl line for each grant and endpoint.
func curlLines(iss *devissuer.Issuer, subjects []string) string {
	u, client := iss.URL, shellArg(iss.ClientID+":"+iss.ClientSecret)
	tok := "$TOKEN_ALICE"
	if len(subjects) > 0 {
		tok = "$TOKEN_" + envName(subjects[0])
	}
	var b strings.Builder
	line := func(what, cmd string) { fmt.Fprintf(&b, "# %s:\n%s\n", what, cmd) }
	line("client credentials (client_secret_basic; -d client_id=… -d client_secret=… for client_secret_post)",
		fmt.Sprintf("curl -s -u %s -d grant_type=client_credentials -d scope=read -d audience=billing %s/token", client, u))
	line("a DPoP-bound token: the proof is signed per request; oauthclient.DPoP(nil) does it, or bind by thumbprint",
		fmt.Sprintf("curl -s '%s/mint?sub=alice&jkt=THUMBPRINT_OF_YOUR_KEY'", u))
	line("token exchange (RFC 8693; add -d actor_token=… -d actor_token_type=… for an act of another subject)",
		fmt.Sprintf("curl -s -u %s -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange -d subject_token=%s -d subject_token_type=urn:ietf:params:oauth:token-type:access_token -d audience=billing %s/token", client, tok, u))
	line("a refresh token, then the refresh grant",
		fmt.Sprintf("curl -s '%s/mint?sub=alice&refresh=true'\ncurl -s -u %s -d grant_type=refresh_token -d refresh_token=REFRESH_TOKEN %s/token", u, client, u))
	line("authorization code with PKCE: open in a browser (the login page asks for nothing), then redeem the code",
		fmt.Sprintf("%s/authorize?response_type=code&client_id=%s&redirect_uri=http://127.0.0.1:8080/callback&code_challenge=CHALLENGE&code_challenge_method=S256&scope=read\ncurl -s -u %s -d grant_type=authorization_code -d code=CODE -d redirect_uri=http://127.0.0.1:8080/callback -d code_verifier=VERIFIER %s/token", u, iss.ClientID, client, u))
	line("introspection (RFC 7662; -H 'Accept: application/token-introspection+jwt' for a signed answer) and revocation (RFC 7009)",
		fmt.Sprintf("curl -s -u %s -d token=%s %s/introspect\ncurl -s -u %s -d token=%s %s/revoke", client, tok, u, client, tok, u))
	line("rotate the signing key (?retire=true drops the old ones)", fmt.Sprintf("curl -s -X POST %s/rotate", u))
	return b.String()
}

// shellArg quotes s for a POSIX shell.
func shellArg(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
