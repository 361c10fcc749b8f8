package bearer

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Principal is the verified caller.
//
// A Principal returned by a verifier, and the Scopes and Claims it points to,
// may be shared with other requests presenting the same token (the
// verification cache hands out the same values): treat it as read-only and
// copy before changing it. A zero Principal is the caller that is not
// authenticated (an anonymous route that was sent no token).
type Principal struct {
	// Subject is the token's `sub`. It is unique only within the issuer: key a
	// caller by (Issuer, Subject).
	Subject string
	// Issuer is the token's `iss`.
	Issuer string
	// Scopes are the permissions the token grants, read from `scope` (a
	// space-separated string) and `scp` (an array of strings or a
	// space-separated string).
	Scopes ScopeSet
	// Roles are the caller's roles, read where the verifier's Profile
	// says (realm_access.roles, cognito:groups, …); empty without one.
	Roles RoleSet
	// ClientID is the client the token was issued to, read where the
	// verifier's Profile says (azp, client_id, cid, appid); "" without one.
	ClientID string
	// Claims are the typed JWT claims the verifier read; nil for a custom
	// principal built without them.
	Claims *Claims
	// Authenticated is true for a verified caller.
	Authenticated bool
	// Extra is what a check hook attaches (a custom object); the verifier
	// leaves it nil.
	Extra any
}

// ScopeSet is a set of scope names.
type ScopeSet map[string]struct{}

// NewScopes returns the set holding s. Empty strings are dropped, because an
// empty scope name grants nothing.
func NewScopes(s ...string) ScopeSet {
	out := make(ScopeSet, len(s))
	for _, v := range s {
		if v != "" {
			out[v] = struct{}{}
		}
	}
	return out
}

// Has reports whether the set holds every scope named: Has("admin") one,
// Has("read", "write") both; true when none is named.
func (s ScopeSet) Has(scopes ...string) bool {
	for _, v := range scopes {
		if _, ok := s[v]; !ok {
			return false
		}
	}
	return true
}

// List returns the scopes in sorted order, so that output built from it is
// stable.
func (s ScopeSet) List() []string {
	out := make([]string, 0, len(s))
	for v := range s {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// Claims are the JWT claims the verifier read. The registered claims are
// typed; Raw keeps every top-level claim, verbatim, for custom reads with
// Decode.
type Claims struct {
	Issuer  string // iss
	Subject string // sub
	ID      string // jti
	// Audience is `aud`, a single string being a one-element list.
	Audience []string
	// Expiry (exp), NotBefore (nbf) and IssuedAt (iat) are zero when absent.
	// They carry whole and fractional seconds as the token sent them.
	Expiry, NotBefore, IssuedAt time.Time
	// Raw holds every top-level claim as sent.
	Raw map[string]json.RawMessage
}

// ErrNoClaim is returned by Claims.Decode for a claim the token does not
// carry.
var ErrNoClaim = errors.New("authn: claim not present")

// Decode reads one raw claim into v with encoding/json. It returns an error
// wrapping ErrNoClaim when the token does not carry the claim, and the JSON
// error when the claim does not fit v.
func (c *Claims) Decode(name string, v any) error {
	if c == nil {
		return fmt.Errorf("authn: claim %q: %w", name, ErrNoClaim)
	}
	raw, ok := c.Raw[name]
	if !ok {
		return fmt.Errorf("authn: claim %q: %w", name, ErrNoClaim)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("authn: claim %q: %w", name, err)
	}
	return nil
}
