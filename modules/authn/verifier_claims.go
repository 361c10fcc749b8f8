package authn

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/svckit/svc/internal/scopetoken"
)

// maxNumericDate is 9999-12-31T23:59:59Z: a NumericDate beyond it is not a
// time anyone issues, and refusing it keeps time arithmetic from
// overflowing.
const maxNumericDate = 253402300799

var (
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
	errSignature   = errors.New("signature does not verify")
	errUnknownKey  = errors.New("no key with the token's kid")
	errKeyAlg      = errors.New("the key the kid names does not fit alg")
)

// registered holds the raw values of the registered claims the verifier
// reads, nil when absent (a present value is never empty).
type registered struct {
	iss, sub, jti, aud, exp, nbf, iat, scope, scp json.RawMessage
}

// set keeps v when name is a registered claim.
func (r *registered) set(name string, v json.RawMessage) {
	switch name {
	case "iss":
		r.iss = v
	case "sub":
		r.sub = v
	case "jti":
		r.jti = v
	case "aud":
		r.aud = v
	case "exp":
		r.exp = v
	case "nbf":
		r.nbf = v
	case "iat":
		r.iat = v
	case "scope":
		r.scope = v
	case "scp":
		r.scp = v
	}
}

// registeredIn looks the registered claims up in a claims map. A present
// claim with a nil value stays present, as an empty (invalid) one.
func registeredIn(raw map[string]json.RawMessage) registered {
	var r registered
	for _, name := range [...]string{"iss", "sub", "jti", "aud", "exp", "nbf", "iat", "scope", "scp"} {
		if v, present := raw[name]; present {
			if v == nil {
				v = json.RawMessage{}
			}
			r.set(name, v)
		}
	}
	return r
}

// readClaims types the registered claims of a payload whose signature
// verified. A claim of the wrong type is an error (ReasonInvalidClaims);
// absent optional claims stay zero.
//
// issuer and audience are the trusted values: a claim equal to them reuses
// them rather than allocating a copy (audList is []string{audience}, shared
// read-only by every principal).
func readClaims(raw map[string]json.RawMessage, issuer string, audList []string) (*Claims, ScopeSet, error) {
	return readRegistered(raw, registeredIn(raw), issuer, audList)
}

// readRegistered is readClaims with the registered claims already picked
// out of raw (by splitPayload, as the payload was read).
func readRegistered(raw map[string]json.RawMessage, r registered, issuer string, audList []string) (*Claims, ScopeSet, error) {
	c := &Claims{Raw: raw}
	var ok bool
	if r.iss != nil {
		if c.Issuer, ok = internString(r.iss, issuer); !ok {
			return c, nil, errStringClaim
		}
	}
	if r.sub != nil {
		if c.Subject, ok = jsonString(r.sub); !ok {
			return c, nil, errStringClaim
		}
	}
	if r.jti != nil {
		if c.ID, ok = jsonString(r.jti); !ok {
			return c, nil, errStringClaim
		}
	}
	if r.aud != nil {
		if len(audList) == 1 && isJSONString(r.aud, audList[0]) {
			c.Audience = audList
		} else if c.Audience, ok = stringOrList(r.aud); !ok {
			return c, nil, errAudShape
		}
	}
	var err error
	if c.IssuedAt, err = numericDate(r.iat); err != nil {
		return c, nil, err
	}
	if c.NotBefore, err = numericDate(r.nbf); err != nil {
		return c, nil, err
	}
	if c.Expiry, err = numericDate(r.exp); err != nil {
		return c, nil, err
	}
	scopes, err := scopesOf(r.scope, r.scp)
	if err != nil {
		return c, nil, err
	}
	if c.Expiry.IsZero() {
		return c, scopes, errNoExp
	}
	return c, scopes, nil
}

// numericDate reads a NumericDate (RFC 7519 §2): a JSON number of seconds,
// fractions allowed; nil (absent) is the zero time. A string, a negative
// number or one past year 9999 is refused.
func numericDate(v json.RawMessage) (time.Time, error) {
	if v == nil {
		return time.Time{}, nil
	}
	if len(v) == 0 || !(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		return time.Time{}, errDate
	}
	if sec, ok := wholeSeconds(v); ok {
		return time.Unix(sec, 0).UTC(), nil
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > maxNumericDate {
		return time.Time{}, errDate
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
}

// wholeSeconds reads the common NumericDate, a whole number of seconds
// in range, without strconv.ParseFloat: up to 12 digits (maxNumericDate
// has 12) and nothing else, which the JSON scan has already checked is a
// number (so no leading zero). Anything else (a fraction, an exponent, a
// minus sign, more digits) is left to ParseFloat, whose result for these
// is the same: such integers are exact in a float64.
func wholeSeconds(v []byte) (int64, bool) {
	if len(v) > 12 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, n <= maxNumericDate
}

// stringOrList reads a string or an array of strings (aud, scp). An
// array element that is not a string (null, a number, an object, an
// array) refuses the whole value: RFC 7519 §4.1.3 has aud an array of
// strings, and encoding/json would read a null element as "".
func stringOrList(v json.RawMessage) ([]string, bool) {
	if s, ok := jsonString(v); ok {
		return []string{s}, true
	}
	return stringArray(v)
}

// stringArray reads a JSON array whose elements are all strings.
func stringArray(v json.RawMessage) ([]string, bool) {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '[' {
		return nil, false
	}
	list := []string{}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == ']' {
		return endArray(v, i, list)
	}
	for {
		end, ok := scanString(v, i)
		if !ok {
			return nil, false
		}
		s, ok := jsonString(v[i:end])
		if !ok {
			return nil, false
		}
		list = append(list, s)
		i = skipSpace(v, end)
		if i >= len(v) {
			return nil, false
		}
		if v[i] == ']' {
			return endArray(v, i, list)
		}
		if v[i] != ',' {
			return nil, false
		}
		i = skipSpace(v, i+1)
	}
}

// endArray hands back list when the ']' at v[i] ends v (but for space).
func endArray(v []byte, i int, list []string) ([]string, bool) {
	if skipSpace(v, i+1) != len(v) {
		return nil, false
	}
	return list, true
}

// readScopes reads `scope` (RFC 8693/9068: one space-separated string) and
// `scp` (an array of strings, or a space-separated string, as some
// providers send); both add to the set.
func readScopes(raw map[string]json.RawMessage) (ScopeSet, error) {
	r := registeredIn(raw)
	return scopesOf(r.scope, r.scp)
}

// scopesOf is readScopes on the two claims' raw values (nil when absent).
// A scope string is split as addScopes splits it; each element of an scp
// array must be one scope-token: an empty one is errScopeEmpty, one with a
// byte outside the grammar errScopeToken. Anything else is errScopeShape.
func scopesOf(scope, scp json.RawMessage) (ScopeSet, error) {
	var scopes ScopeSet
	var ok bool
	if scope != nil {
		s, isString := jsonString(scope)
		if !isString {
			return nil, errScopeShape
		}
		if scopes, ok = addScopes(scopes, s); !ok {
			return nil, errScopeToken
		}
	}
	if scp != nil {
		if s, isString := jsonString(scp); isString {
			if scopes, ok = addScopes(scopes, s); !ok {
				return nil, errScopeToken
			}
		} else {
			list, isList := stringArray(scp)
			if !isList {
				return nil, errScopeShape
			}
			for _, s := range list {
				if s == "" {
					return nil, errScopeEmpty
				}
				if !isScopeToken(s) {
					return nil, errScopeToken
				}
				if scopes == nil {
					scopes = make(ScopeSet, len(list))
				}
				scopes[s] = struct{}{}
			}
		}
	}
	if scopes == nil {
		scopes = ScopeSet{}
	}
	return scopes, nil
}

// addScopes adds the scope-tokens of the scope string s (RFC 6749 §3.3:
// scope-token *( SP scope-token )) to set, which it makes on the first
// name. Only the space character (%x20) separates tokens; tab, newline,
// NBSP or any other white space is not a separator but a forbidden byte,
// so "files:read\u00a0admin" cannot grant admin. ok is false when s holds
// a byte no scope-token allows (see isScopeByte).
//
// Runs of spaces, and spaces at either end, are tolerated where the strict
// grammar would refuse them: an empty token names no scope, so reading
// "a  b" as {a, b} grants nothing the issuer did not write, and some
// issuers pad the string. The empty string is no scopes.
func addScopes(set ScopeSet, s string) (ScopeSet, bool) {
	for i := 0; i < len(s); {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		start := i
		for i < len(s) && s[i] != ' ' {
			if !isScopeByte(s[i]) {
				return set, false
			}
			i++
		}
		if i > start {
			if set == nil {
				// One more than the spaces: the names, when single spaces
				// separate them, so the set is made at its size.
				set = make(ScopeSet, strings.Count(s, " ")+1)
			}
			set[s[start:i]] = struct{}{}
		}
	}
	return set, true
}

// isScopeToken reports whether s is one RFC 6749 scope-token: one or more
// bytes, each allowed by isScopeByte (so no space).
func isScopeToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isScopeByte(s[i]) {
			return false
		}
	}
	return true
}

// isScopeByte is RFC 6749's NQCHAR: %x21 / %x23-5B / %x5D-7E, printable
// ASCII but for the space, '"' and '\'. Any byte of a non-ASCII character
// is outside it.
func isScopeByte(c byte) bool { return scopetoken.IsByte(c) }

// checkClaims applies the trust rules to typed claims: iss exact, aud
// containing the audience, then exp, nbf and iat against now with leeway.
func checkClaims(c *Claims, issuer, audience string, now time.Time, leeway time.Duration) (Reason, error) {
	if c.Issuer != issuer {
		return ReasonIssuer, errIssuer
	}
	found := false
	for _, a := range c.Audience {
		if a == audience {
			found = true
			break
		}
	}
	if !found {
		return ReasonAudience, errAudience
	}
	if !now.Before(c.Expiry.Add(leeway)) {
		return ReasonExpired, errExpired
	}
	if !c.NotBefore.IsZero() && now.Add(leeway).Before(c.NotBefore) {
		return ReasonNotYetValid, errNotBefore
	}
	if !c.IssuedAt.IsZero() && now.Add(leeway).Before(c.IssuedAt) {
		return ReasonNotYetValid, errIssuedAt
	}
	return "", nil
}
