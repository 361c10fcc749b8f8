package authn

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
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
//	return authn.Principal{}, authn.ClaimsChallenge([]byte(`{"access_token":{"acrs":{"essential":true,"value":"c1"}}}`))
//
// The gate answers 401 insufficient-claims with
// `WWW-Authenticate: Bearer error="insufficient_claims", claims="<base64>"`,
// the claims in standard base64 as Microsoft's clients (MSAL) read them,
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
