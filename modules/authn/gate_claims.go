package authn

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/svckit/svc/internal/urlshape"
)

// kindInsufficientClaims is the refusal of a claims challenge
// (ClaimsChallenge): 401 with error="insufficient_claims".
const kindInsufficientClaims RefusalKind = "insufficient-claims"

// maxChallengeClaims bounds the claims of a challenge: their base64 goes
// into a response header, and proxies refuse responses whose headers pass
// a few KiB. Real challenges (Entra's acrs, xms_cc) are under 200 bytes.
const maxChallengeClaims = 2 << 10

// ClaimsChallenge is what a check hook ([Check]) returns to refuse a token
// that lacks claims the app needs now (continuous access evaluation; an
// Entra Conditional Access authentication context):
//
//	return bearer.Principal{}, authn.ClaimsChallenge([]byte(`{"access_token":{"acrs":{"essential":true,"value":"c1"}}}`))
//
// The gate answers 401 insufficient-claims with
// `WWW-Authenticate: Bearer error="insufficient_claims", claims="<base64>"`,
// the claims in standard base64 as Microsoft's clients (MSAL) read them
// (preceded by realm and authorization_uri with
// [ClaimsChallengeAuthority]),
// and writes a security record and the refusal metric like its other
// refusals. The claims are the app's own request, never read from the
// token.
//
// It refuses claims that are not one JSON object or that are longer than
// 2 KiB: it then returns an error naming the problem (never the claims),
// which the gate answers as any other error of the hook (500, logged), so
// that a challenge no client could read is never sent.
func ClaimsChallenge(claims []byte) error {
	trimmed := bytes.TrimSpace(claims)
	switch {
	case len(trimmed) > maxChallengeClaims:
		return errors.New("authn.ClaimsChallenge: claims are " + strconv.Itoa(len(trimmed)) + " bytes, over the 2048 a challenge header can carry: ask for fewer claims")
	case len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed):
		return errors.New("authn.ClaimsChallenge: claims are not one JSON object (OpenID Connect Core §5.5): pass a JSON object such as {\"access_token\":{…}}")
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, trimmed) // valid: checked above
	return &Refusal{Kind: kindInsufficientClaims, claims: base64.StdEncoding.EncodeToString(compact.Bytes())}
}

// challengeAuthority is what ClaimsChallengeAuthority adds to a claims
// challenge, each already written as a quoted-string.
type challengeAuthority struct {
	realm, authorizationURI string
	err                     error
}

// ClaimsChallengeAuthority makes every claims challenge of the gate
// ([ClaimsChallenge]) name where the claims can be obtained, as Microsoft
// Entra documents the challenge and its clients read it:
//
//	WWW-Authenticate: Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", error="insufficient_claims", claims="…"
//
// realm is the tenant the API belongs to (its ID or domain name), "" when
// clients sign in through a multi-tenant endpoint such as common;
// authorizationURI is the authorize endpoint where the user can satisfy
// the claims interactively. Both are written as RFC 9110 quoted strings
// (a '"' or '\' escaped with '\'), so the header stays one RFC 6750 §3
// challenge whatever they hold.
//
// New refuses an authorizationURI that is not an absolute https URL (http
// only on a loopback host), or that carries user information or a
// fragment, and a realm or authorizationURI holding a control character
// or a byte outside ASCII.
func ClaimsChallengeAuthority(realm, authorizationURI string) Option {
	a := &challengeAuthority{realm: quotedString(realm), authorizationURI: quotedString(authorizationURI)}
	switch {
	case !headerSafe(realm):
		a.err = errors.New("authn.ClaimsChallengeAuthority: the realm holds a control character or a byte outside ASCII: pass the tenant's ID or domain name, or \"\"")
	case !headerSafe(authorizationURI):
		a.err = errors.New("authn.ClaimsChallengeAuthority: the authorization URI holds a control character or a byte outside ASCII")
	default:
		if err := urlshape.Fetchable(authorizationURI); err != nil {
			a.err = errors.New("authn.ClaimsChallengeAuthority: the authorization URI " + err.Error() + ": pass the issuer's authorize endpoint, such as https://login.microsoftonline.com/common/oauth2/authorize")
		}
	}
	return func(c *gateConfig) { c.claimsAuthority = a }
}

// headerSafe reports whether s may go into a quoted-string as it is: no
// control character (CR and LF would end the header) and nothing outside
// ASCII (obs-text, which clients read differently).
func headerSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// quotedString writes s as an RFC 9110 §5.6.4 quoted-string: between
// double quotes, with '"' and '\' escaped by a backslash.
func quotedString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String()
}
