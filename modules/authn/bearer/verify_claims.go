package bearer

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svckit/svc/internal/scopetoken"
	"github.com/svckit/svc/modules/authn/internal/jsonscan"
)

// maxNumericDate is 9999-12-31T23:59:59Z: a NumericDate beyond it is not a
// time anyone issues, and refusing it keeps time arithmetic from
// overflowing.
const maxNumericDate = 253402300799

// The claims step reads the payload of a token whose signature verified,
// and only then: one JSON object with unique member names, the registered
// claims typed (exp required), then the trust rules: iss exact, aud
// containing the audience, exp, nbf and iat against the clock with leeway.

// readClaims returns the principal the payload names and until when its
// verification may be cached. A refusal is a *TokenError marked Signed:
// ReasonMalformed for a payload that is not one JSON object,
// ReasonInvalidClaims for a claim of the wrong type, else the rule it
// broke; it carries the principal the claims name, never authenticated.
func (v *JWTVerifier) readClaims(payload []byte, now time.Time) (Principal, time.Time, error) {
	raw, reg, err := splitPayload(payload, v.payloadWords)
	if err != nil {
		return Principal{}, time.Time{}, &TokenError{Reason: ReasonMalformed, Signed: true, Err: err}
	}
	return v.judgeClaims(raw, reg, now)
}

// judgeClaims types the registered claims and applies the trust rules,
// for a signed payload and for an active introspection answer alike.
func (v *JWTVerifier) judgeClaims(raw map[string]json.RawMessage, reg registered, now time.Time) (Principal, time.Time, error) {
	claims, scopes, err := readRegistered(raw, reg, v.audList)
	p := Principal{Subject: claims.Subject, Issuer: claims.Issuer, Scopes: scopes, Claims: claims}
	if err != nil {
		return Principal{}, time.Time{}, &TokenError{Reason: ReasonInvalidClaims, Signed: true, Principal: p, Err: err}
	}
	issuer, audience := v.cfg.profile.issuerFor(claims.Issuer, v.cfg.issuer), v.cfg.audience
	if v.cfg.profile != nil && v.cfg.profile.audienceClaim != "" {
		audience = "" // the profile's claim holds it: apply checks it
	}
	if reason, err := checkClaims(claims, issuer, audience, now, v.cfg.leeway); err != nil {
		return Principal{}, time.Time{}, &TokenError{Reason: reason, Signed: true, Principal: p, Err: err}
	}
	if v.cfg.tenant != "" && !tenantMatches(raw["tid"], v.cfg.tenant) {
		return Principal{}, time.Time{}, &TokenError{Reason: ReasonIssuer, Signed: true, Principal: p,
			Err: fmt.Errorf("%w: tid does not name the issuer's tenant %s", errIssuer, quoteSetting(v.cfg.tenant))}
	}
	if v.cfg.profile != nil {
		if reason, err := v.cfg.profile.apply(raw, v.cfg.audience, &p); err != nil {
			return Principal{}, time.Time{}, &TokenError{Reason: reason, Signed: true, Principal: p, Err: err}
		}
	}
	p.Authenticated = true
	return p, claims.Expiry.Add(v.cfg.leeway), nil
}

// splitPayload returns the top-level members of the payload, which must be
// one JSON object with unique member names (encoding/json would keep the
// last, so a second "exp" could hide behind the first; names are compared
// after unescaping), and the registered claims, picked out on the way so
// that reading them takes no lookups. A string equal to one of known (the
// trusted issuer and audience) is read as that string, allocating nothing.
func splitPayload(raw []byte, known []string) (map[string]json.RawMessage, registered, error) {
	var buf [16]jsonscan.Member
	var reg registered
	members, err := jsonscan.Members(raw, buf[:0], known)
	if err != nil {
		return nil, reg, err
	}
	obj := make(map[string]json.RawMessage, len(members))
	for i, m := range members {
		obj[m.Name] = m.Value
		// A name seen before replaces its value instead of adding one.
		if len(obj) != i+1 {
			return nil, registered{}, errDuplicate
		}
		reg.set(m)
	}
	return obj, reg, nil
}

// registered holds the registered claims the verifier reads; a claim's
// Value is nil when it is absent (a present value is never empty).
type registered struct {
	iss, sub, jti, aud, exp, nbf, iat, scope, scp jsonscan.Member
}

// set keeps v when it is a registered claim.
func (r *registered) set(v jsonscan.Member) {
	switch v.Name {
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

// readRegistered types the registered claims r picked out of raw. A claim
// of the wrong type is an error (ReasonInvalidClaims); absent optional
// claims stay zero. An aud of just the trusted audience reuses audList
// ([]string{audience}, shared read-only by every principal) rather than
// allocating a copy.
func readRegistered(raw map[string]json.RawMessage, r registered, audList []string) (*Claims, ScopeSet, error) {
	c := &Claims{Raw: raw}
	for _, s := range [...]struct {
		claim jsonscan.Member
		to    *string
	}{{r.iss, &c.Issuer}, {r.sub, &c.Subject}, {r.jti, &c.ID}} {
		if s.claim.Value != nil {
			if !s.claim.IsText {
				return c, nil, errStringClaim
			}
			*s.to = s.claim.Text
		}
	}
	if r.aud.Value != nil {
		var ok bool
		switch {
		case r.aud.IsText && len(audList) == 1 && r.aud.Text == audList[0]:
			c.Audience = audList
		case r.aud.IsText:
			c.Audience = []string{r.aud.Text}
		default:
			// RFC 7519 §4.1.3: an array of strings. An element that is not
			// a string (null, a number, an object, an array) refuses the
			// whole value, where encoding/json would read a null as "".
			if c.Audience, ok = jsonscan.StringArray(r.aud.Value); !ok {
				return c, nil, errAudShape
			}
		}
	}
	var err error
	if c.IssuedAt, err = numericDate(r.iat.Value); err != nil {
		return c, nil, err
	}
	if c.NotBefore, err = numericDate(r.nbf.Value); err != nil {
		return c, nil, err
	}
	if c.Expiry, err = numericDate(r.exp.Value); err != nil {
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

// scopesOf reads `scope` (RFC 8693/9068: one space-separated string) and
// `scp` (an array of strings, or a space-separated string, as some
// providers send); both add to the set. A scope string is split as addScopes splits it; each element of an scp
// array must be one scope-token: an empty one is errScopeEmpty, one with a
// byte outside the grammar errScopeToken. Anything else is errScopeShape.
func scopesOf(scope, scp jsonscan.Member) (ScopeSet, error) {
	var scopes ScopeSet
	var ok bool
	if scope.Value != nil {
		if !scope.IsText {
			return nil, errScopeShape
		}
		if scopes, ok = addScopes(scopes, scope.Text); !ok {
			return nil, errScopeToken
		}
	}
	if scp.Value != nil {
		if scp.IsText {
			if scopes, ok = addScopes(scopes, scp.Text); !ok {
				return nil, errScopeToken
			}
		} else {
			list, isList := jsonscan.StringArray(scp.Value)
			if !isList {
				return nil, errScopeShape
			}
			for _, s := range list {
				if s == "" {
					return nil, errScopeEmpty
				}
				if !scopetoken.Valid(s) {
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
// a byte no scope-token allows (see scopetoken.IsByte).
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
			if !scopetoken.IsByte(s[i]) {
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

// checkClaims applies the trust rules to typed claims: iss exact, aud
// containing the audience (unless audience is "": a profile's claim holds
// it), then exp, nbf and iat against now with leeway.
func checkClaims(c *Claims, issuer, audience string, now time.Time, leeway time.Duration) (Reason, error) {
	if c.Issuer != issuer {
		return ReasonIssuer, fmt.Errorf("%w: iss %s, want %s", errIssuer, quoteSetting(c.Issuer), quoteSetting(issuer))
	}
	if audience != "" && !slices.Contains(c.Audience, audience) {
		return ReasonAudience, &AudienceError{Got: c.Audience, Want: audience}
	}
	// The errors name the instants that differed, not now: a refusal's
	// cause is the token's, and the clock reads the same in every log.
	if !now.Before(c.Expiry.Add(leeway)) {
		return ReasonExpired, fmt.Errorf("%w: exp %s, leeway %s", errExpired, c.Expiry.Format(time.RFC3339), leeway)
	}
	if !c.NotBefore.IsZero() && now.Add(leeway).Before(c.NotBefore) {
		return ReasonNotYetValid, fmt.Errorf("%w: nbf %s, leeway %s", errNotBefore, c.NotBefore.Format(time.RFC3339), leeway)
	}
	if !c.IssuedAt.IsZero() && now.Add(leeway).Before(c.IssuedAt) {
		return ReasonNotYetValid, fmt.Errorf("%w: iat %s, leeway %s", errIssuedAt, c.IssuedAt.Format(time.RFC3339), leeway)
	}
	return "", nil
}

// tenantMatches reports whether tid, as written in the payload, is the
// JSON string tenant (an issuer template's tenant, tenants.go).
func tenantMatches(tid json.RawMessage, tenant string) bool {
	var got string
	return tid != nil && json.Unmarshal(tid, &got) == nil && got == tenant
}
