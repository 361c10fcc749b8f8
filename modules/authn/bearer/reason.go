package bearer

import (
	"errors"
	"fmt"
)

// Reason is the stable word saying why a token was refused. It is the
// `reason` member of a token-rejected refusal body and the `error.type` of
// security records and metrics, so its values never change meaning.
type Reason string

// The reason words. Each is documented with what triggers it.
const (
	// ReasonMalformed: the token is not a well-formed compact JWS (wrong
	// number of segments, bad or non-canonical base64url, a header or payload
	// that is not one JSON object, duplicate JSON member names, invalid
	// UTF-8, an unknown `crit` or a `b64` header), or an opaque token given
	// to a verifier without Introspect (the gate's detail says so). Found
	// before any signature work.
	ReasonMalformed Reason = "malformed"
	// ReasonAlgorithm: `alg` is not in the verifier's allow-list (`none` in
	// any spelling, HMAC, anything symmetric or unknown), or does not fit the
	// type, curve or declared `alg` of the key the token names. Counts as
	// forged.
	ReasonAlgorithm Reason = "algorithm"
	// ReasonSignature: the signature does not verify with the key. Counts as
	// forged.
	ReasonSignature Reason = "signature"
	// ReasonUnknownKey: the `kid` is not in the key set, even after one
	// refresh, or no key of the algorithm's type is held. Never counts
	// toward bans, because keys being rotated look like this.
	ReasonUnknownKey Reason = "unknown-key"
	// ReasonExpired: `exp` is past (beyond the leeway).
	ReasonExpired Reason = "expired"
	// ReasonNotYetValid: `nbf` or `iat` is in the future (beyond the
	// leeway).
	ReasonNotYetValid Reason = "not-yet-valid"
	// ReasonIssuer: `iss` is not exactly the trusted issuer (a trailing
	// slash counts as a difference).
	ReasonIssuer Reason = "issuer"
	// ReasonAudience: `aud` is absent or does not contain the audience.
	ReasonAudience Reason = "audience"
	// ReasonInvalidClaims: the signature verified but a registered claim is
	// missing or of the wrong type: no `exp`, `exp`/`nbf`/`iat` that are not
	// numbers or are out of range, `iss`/`sub`/`jti` that are not strings,
	// `aud`/`scope`/`scp` of the wrong shape.
	ReasonInvalidClaims Reason = "invalid-claims"
	// ReasonTokenType: the verifier requires a JWS `typ` (TokenTypes, e.g.
	// "at+jwt") and the token carries another or none. Found before the
	// signature is checked. A gate without DPoP also refuses with it a
	// token bound to a key (cnf.jkt, or introspected as token_type DPoP).
	ReasonTokenType Reason = "token-type"
	// ReasonRevoked: the gate's check hook refused the caller. Bans never
	// count it.
	ReasonRevoked Reason = "revoked"
	// ReasonEncrypted: the token is a JWE (five segments). Refused before any
	// parsing work; the verifier decrypts nothing.
	ReasonEncrypted Reason = "encrypted"
	// ReasonTooLarge: the token is longer than the verifier's size limit
	// (MaxTokenSize). Refused before any parsing work.
	ReasonTooLarge Reason = "too-large"
	// ReasonInactive: the issuer's introspection endpoint answered
	// `active: false` for an opaque token (revoked, expired or unknown
	// there; see Introspect). Counts as forged, and spends the caller's
	// flood budget, when the caller's own request fetched the answer (a
	// random string costs a request to the issuer); never when a cache
	// answered.
	ReasonInactive Reason = "inactive"
)

// Forged reports whether the reason shows a forgery attempt: true only for
// ReasonSignature and ReasonAlgorithm, the two reasons bans always count
// (an inactive answer counts only when the caller's request fetched it:
// ErrInactiveFetched).
func (r Reason) Forged() bool {
	return r == ReasonSignature || r == ReasonAlgorithm
}

// TokenError is the error a verifier returns for a token it refuses. The
// gate answers 401 token-rejected with Reason.
type TokenError struct {
	// Reason is the stable refusal word.
	Reason Reason
	// Signed is true when the signature verified (the token was refused for
	// its claims), so Principal names a real caller, e.g. for `enduser.id`
	// on the refusal. A forged token names nobody.
	Signed bool
	// Principal is the caller the token names, filled only when Signed. Its
	// Authenticated is false: the caller was refused.
	Principal Principal
	// Err is the internal cause, for logs at debug level; it is never
	// rendered to the client and never quotes the token.
	Err error
}

// Error mentions the reason and the cause, never the token.
func (e *TokenError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("authn: token rejected (%s): %v", e.Reason, e.Err)
	}
	return fmt.Sprintf("authn: token rejected (%s)", e.Reason)
}

// Unwrap returns the internal cause.
func (e *TokenError) Unwrap() error { return e.Err }

// ErrKeysUnavailable is returned by Verify while the verifier holds no
// signing keys yet (none loaded since Open). The gate answers 503
// signing-keys-unavailable. Test with errors.Is: the returned error wraps it
// with the last fetch failure.
var ErrKeysUnavailable = errors.New("authn: signing keys unavailable")
