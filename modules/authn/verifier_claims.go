package authn

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
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
	errIssuer      = errors.New("iss is not the trusted issuer")
	errAudience    = errors.New("aud does not contain the audience")
	errExpired     = errors.New("exp is past")
	errNotBefore   = errors.New("nbf is in the future")
	errIssuedAt    = errors.New("iat is in the future")
	errSignature   = errors.New("signature does not verify")
	errUnknownKey  = errors.New("no key with the token's kid")
	errKeyAlg      = errors.New("the key the kid names does not fit alg")
)

// readClaims types the registered claims of a payload whose signature
// verified. A claim of the wrong type is an error (ReasonInvalidClaims);
// absent optional claims stay zero.
//
// issuer and audience are the trusted values: a claim equal to them reuses
// them rather than allocating a copy (audList is []string{audience}, shared
// read-only by every principal).
func readClaims(raw map[string]json.RawMessage, issuer string, audList []string) (*Claims, ScopeSet, error) {
	c := &Claims{Raw: raw}
	var ok bool
	if v, present := raw["iss"]; present {
		if c.Issuer, ok = internString(v, issuer); !ok {
			return c, nil, errStringClaim
		}
	}
	if v, present := raw["sub"]; present {
		if c.Subject, ok = jsonString(v); !ok {
			return c, nil, errStringClaim
		}
	}
	if v, present := raw["jti"]; present {
		if c.ID, ok = jsonString(v); !ok {
			return c, nil, errStringClaim
		}
	}
	if v, present := raw["aud"]; present {
		if len(audList) == 1 && isJSONString(v, audList[0]) {
			c.Audience = audList
		} else if c.Audience, ok = stringOrList(v); !ok {
			return c, nil, errAudShape
		}
	}
	var err error
	if c.IssuedAt, err = numericDate(raw, "iat"); err != nil {
		return c, nil, err
	}
	if c.NotBefore, err = numericDate(raw, "nbf"); err != nil {
		return c, nil, err
	}
	if c.Expiry, err = numericDate(raw, "exp"); err != nil {
		return c, nil, err
	}
	scopes, err := readScopes(raw)
	if err != nil {
		return c, nil, err
	}
	if c.Expiry.IsZero() {
		return c, scopes, errNoExp
	}
	return c, scopes, nil
}

// numericDate reads a NumericDate (RFC 7519 §2): a JSON number of seconds,
// fractions allowed. A string, a negative number or one past year 9999 is
// refused.
func numericDate(raw map[string]json.RawMessage, name string) (time.Time, error) {
	v, present := raw[name]
	if !present {
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

// stringOrList reads a string or an array of strings (aud, scp).
func stringOrList(v json.RawMessage) ([]string, bool) {
	if s, ok := jsonString(v); ok {
		return []string{s}, true
	}
	if len(v) == 0 || v[0] != '[' {
		return nil, false
	}
	var list []string
	if err := json.Unmarshal(v, &list); err != nil {
		return nil, false
	}
	return list, true
}

// readScopes reads `scope` (RFC 8693/9068: one space-separated string) and
// `scp` (an array of strings, or a space-separated string, as some
// providers send); both add to the set.
func readScopes(raw map[string]json.RawMessage) (ScopeSet, error) {
	var scopes ScopeSet
	add := func(s string) {
		for f := range strings.FieldsSeq(s) {
			if scopes == nil {
				scopes = make(ScopeSet, 4)
			}
			scopes[f] = struct{}{}
		}
	}
	if v, present := raw["scope"]; present {
		s, ok := jsonString(v)
		if !ok {
			return nil, errScopeShape
		}
		add(s)
	}
	if v, present := raw["scp"]; present {
		list, ok := stringOrList(v)
		if !ok {
			return nil, errScopeShape
		}
		for _, s := range list {
			add(s)
		}
	}
	if scopes == nil {
		scopes = ScopeSet{}
	}
	return scopes, nil
}

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
