package bearer

// RoleSet is a set of role names, read from the claims a verifier's
// Profile names (Principal.Roles).
type RoleSet map[string]struct{}

// NewRoles returns the set holding r. Empty strings are dropped, because an
// empty role name grants nothing.
func NewRoles(r ...string) RoleSet { return RoleSet(NewScopes(r...)) }

// Has reports whether the set holds every role named; true when none is
// named.
func (s RoleSet) Has(roles ...string) bool { return ScopeSet(s).Has(roles...) }

// List returns the roles in sorted order, so that output built from it is
// stable.
func (s RoleSet) List() []string { return ScopeSet(s).List() }
