package bearer

import (
	"errors"
	"strings"
)

// The causes a refused token's TokenError wraps, by the step of Verify
// that meets them first (split, header, claims; some serve several
// steps), then those of an introspection answer. Each says what was wrong
// and never repeats the token.
var (
	// split
	errTooLarge     = errors.New("token longer than the size limit")
	errEmpty        = errors.New("empty token")
	errEncrypted    = errors.New("token is a JWE (five segments)")
	errSegments     = errors.New("not three dot-separated segments")
	errAlphabet     = errors.New("line break inside the token")
	errEmptySegment = errors.New("empty segment")
	errBase64       = errors.New("segment is not canonical base64url")
	errUTF8         = errors.New("segment is not valid UTF-8")

	// header
	errDuplicate  = errors.New("duplicate JSON member name")
	errNoAlg      = errors.New("header has no alg string")
	errKid        = errors.New("header kid is not a string")
	errCrit       = errors.New("header has crit: no extension is understood")
	errB64        = errors.New("header has b64: unencoded payloads are not accepted")
	errJWEHeader  = errors.New("header has enc or zip: not a JWS")
	errAlgNone    = errors.New("alg none")
	errAlgRefused = errors.New("alg not accepted")
	errTokenType  = errors.New("typ is not one the verifier requires")

	// claims
	errNoExp       = errors.New("exp missing")
	errDate        = errors.New("a NumericDate claim is not a number in range")
	errStringClaim = errors.New("iss, sub or jti is not a string")
	errAudShape    = errors.New("aud is not a string or an array of strings")
	errScopeShape  = errors.New("scope or scp has the wrong shape")
	errScopeToken  = errors.New("scope or scp holds a byte RFC 6749 §3.3 does not allow in a scope-token (%x21 / %x23-5B / %x5D-7E; only the space separates tokens)")
	errScopeEmpty  = errors.New("scp holds an empty scope (an array element must be one scope-token, RFC 6749 §3.3)")
	errIssuer      = errors.New("iss is not the trusted issuer")
	errAudience    = errors.New("aud does not contain the audience")
	errExpired     = errors.New("exp is past")
	errNotBefore   = errors.New("nbf is in the future")
	errIssuedAt    = errors.New("iat is in the future")

	// profile (profile_apply.go)
	errRoleShape = errors.New("a role claim is not a string or an array of strings")
	errRolePath  = errors.New("a role claim path crosses a value that is not an object")
	errClientID  = errors.New("the client id claim is not a string")
	errTokenUse  = errors.New("token_use is not the one the profile requires")

	// introspection
	errNoActive        = errors.New("answer has no boolean active member (RFC 7662 §2.2)")
	errInactive        = errors.New("the issuer answered active: false")
	errIntrospectType  = errors.New("token_type is not Bearer, nor DPoP with a cnf.jkt")
	errSignedIssuer    = errors.New("signed answer's iss is not the issuer")
	errSignedAudience  = errors.New("signed answer's aud does not name the client ID")
	errSignedNoContent = errors.New("signed answer has no token_introspection object (RFC 9701 §5)")
)

// errStillLoading is the cause of ErrKeysUnavailable while the first key
// fetch runs: Discover waits for it to end.
var errStillLoading = errors.New("first key fetch still running")

// The causes a gate tells apart in a TokenError.
var (
	// ErrInactiveFetched is wrapped by the TokenError (ReasonInactive) of
	// the one Verify whose own introspection request fetched the answer
	// active: false (not one answered from a cache, nor the others that
	// waited for the same answer): the gate counts it toward that
	// caller's bans and flood budget, as a forged signature.
	ErrInactiveFetched error = inactiveAsked{}
	// ErrOpaqueNotIntrospected is wrapped by the TokenError
	// (ReasonMalformed) of an opaque token given to a verifier that
	// introspects none (no Introspect): the gate's detail says so.
	ErrOpaqueNotIntrospected = errors.New("an opaque token (not a JWS), and no issuer here introspects (bearer.Introspect)")
)

// inactiveAsked is ErrInactiveFetched: errInactive, under its own message
// (the verdict is the same, the cached one included; only who paid for
// it differs).
type inactiveAsked struct{}

func (inactiveAsked) Error() string { return errInactive.Error() }
func (inactiveAsked) Unwrap() error { return errInactive }

// AudienceError is the cause a TokenError with ReasonAudience wraps: the
// token's `aud` (Got, as the token wrote it; empty when it has none) and
// the audience the verifier that judged it trusts (Want). Find it with
// errors.As. It is for the service's own logs, to tell a token minted for
// another audience (Keycloak's default `aud: account`, say) from one
// minted for none: the gate writes both on its security record and a log
// line, never in the answer to the caller.
type AudienceError struct {
	Got  []string
	Want string
}

// Error names both audiences, as the verifier's other causes do.
func (e *AudienceError) Error() string {
	return errAudience.Error() + ": aud " + quoteSetting(strings.Join(e.Got, " ")) + ", want " + quoteSetting(e.Want) + " among them"
}

// Unwrap returns the cause every audience refusal shares.
func (e *AudienceError) Unwrap() error { return errAudience }
