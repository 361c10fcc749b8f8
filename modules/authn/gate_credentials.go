package authn

import (
	"net/http"
	"strings"

	"github.com/svckit/svc/modules/authn/internal/b64token"

	"github.com/svckit/svc/modules/authn/bearer"
)

// readCredential returns the bearer token of r, "" when r carries none (no
// Authorization header, or another scheme such as Basic), or a refusal:
// ambiguous-credentials for more than one credential, token-rejected
// (malformed) for a Bearer header without a token. Whether the token is an
// RFC 6750 b64token is judged once, by scannedToken.
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
	if token == "" {
		return "", malformedCredential()
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

// malformedCredential is the refusal of a credential that is not an RFC
// 6750 b64token.
func malformedCredential() *Refusal {
	return &Refusal{Kind: KindTokenRejected, Reason: bearer.ReasonMalformed}
}

// scannedToken reports whether the gate may hand token on as it stands, or
// must refuse it as malformedCredential: not an RFC 6750 b64token. refused
// tells whether the verifier refused it. svc's verifiers refuse whatever is
// not a b64token themselves (bearer.ChecksTokenSyntax), so for them the
// scan runs only on a refused token, and a cached one, the common case,
// never pays for it; the answer is the gate's own either way. A verifier
// of the app's own is handed only b64tokens.
func (g *Gate) scannedToken(token string, refused bool) bool {
	if g.verifierScans && !refused {
		return true
	}
	return b64token.Valid(token)
}
