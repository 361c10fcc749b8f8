package authn

import (
	"net/http"
	"strings"

	"github.com/svckit/svc/modules/authn/bearer"
)

// readCredential returns the bearer token of r, "" when r carries none (no
// Authorization header, or another scheme such as Basic), or a refusal:
// ambiguous-credentials for more than one credential, token-rejected
// (malformed) for a Bearer header whose token is not RFC 6750 b64token.
func readCredential(r *http.Request) (string, *Refusal) {
	values := r.Header["Authorization"]
	if len(values) > 1 {
		return "", &Refusal{Kind: KindAmbiguousCredentials}
	}
	if len(values) == 0 {
		return "", nil
	}
	token, isBearer := bearerToken(values[0])
	if !isBearer {
		return "", nil
	}
	// RFC 6750 §2: a client must not use more than one method. A token in
	// the query beside the header is refused, not ignored, so that a proxy
	// and the app cannot disagree on which one was meant. The body is never
	// read here: waiting for a body nobody asked for lets a client that
	// trickles it hold the gate (issue 14 item 3). Body tokens (RFC 6750
	// §2.2) are not accepted, so an access_token form field is just a field
	// of the app's, never a credential.
	if r.URL.RawQuery != "" && r.URL.Query().Has("access_token") {
		return "", &Refusal{Kind: KindAmbiguousCredentials}
	}
	if !isB64Token(token) {
		return "", &Refusal{Kind: KindTokenRejected, Reason: bearer.ReasonMalformed}
	}
	return token, nil
}

// bearerToken splits an Authorization value into its Bearer token. The
// scheme is case-insensitive (RFC 9110 §11.1); isBearer is false for any
// other scheme.
func bearerToken(value string) (token string, isBearer bool) {
	value = strings.TrimLeft(value, " \t")
	scheme, rest, _ := strings.Cut(value, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.Trim(rest, " \t"), true
}

// isB64Token reports whether s is an RFC 6750 b64token:
// 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	if s == "" {
		return false
	}
	i := 0
	for i < len(s) && b64tokenChar[s[i]] {
		i++
	}
	if i == 0 {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}

// b64tokenChar marks the bytes of RFC 6750 b64token before its "=" padding.
var b64tokenChar = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'
	}
	return t
}()
