package bearer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/svckit/svc/modules/authn/internal/jsonscan"
)

// apply reads roles and the client id into p as the profile says, and
// applies its audience and token_use rules (the audience rule of aud is
// checkClaims'). A refusal is the rule broken: ReasonTokenType for
// token_use, ReasonAudience for the audience claim, ReasonInvalidClaims
// for a role or client id claim of the wrong shape.
func (pr *ProviderProfile) apply(raw map[string]json.RawMessage, audience string, p *Principal) (Reason, error) {
	if err := pr.checkAltTenant(p.Issuer, raw["tid"]); err != nil {
		return ReasonIssuer, err
	}
	if pr.tokenUse != "" {
		if got, ok := rawString(raw["token_use"]); !ok || got != pr.tokenUse {
			return ReasonTokenType, fmt.Errorf("%w: token_use %s, want %s", errTokenUse, quoteSetting(got), quoteSetting(pr.tokenUse))
		}
	}
	if pr.audienceClaim != "" {
		if got, ok := rawString(raw[pr.audienceClaim]); !ok || got != audience {
			return ReasonAudience, fmt.Errorf("%w: %s %s, want %s", errAudience, pr.audienceClaim, quoteSetting(got), quoteSetting(audience))
		}
	}
	for _, name := range pr.clientIDs {
		v, present := raw[name]
		if !present {
			continue
		}
		id, ok := rawString(v)
		if !ok {
			return ReasonInvalidClaims, fmt.Errorf("%w: %s", errClientID, name)
		}
		p.ClientID = id
		break
	}
	var roles RoleSet
	for _, path := range pr.roles {
		var err error
		if roles, err = addRoles(roles, raw, path); err != nil {
			return ReasonInvalidClaims, fmt.Errorf("%w: %s", err, claimPathString(path))
		}
	}
	if roles == nil {
		roles = RoleSet{}
	}
	p.Roles = roles
	return "", nil
}

// addRoles adds the roles at path to set: a string array, or a string of
// space-separated names. An absent member anywhere on the path adds none;
// a member on the way that is not an object (or names a member twice), or
// a value of another shape, is an error.
func addRoles(set RoleSet, raw map[string]json.RawMessage, path []string) (RoleSet, error) {
	v, ok := raw[path[0]]
	for _, name := range path[1:] {
		if !ok {
			return set, nil
		}
		members, err := jsonscan.Members(v, nil, nil)
		if err != nil {
			return set, errRolePath
		}
		v, ok = nil, false
		for _, m := range members {
			if m.Name == name {
				if ok {
					return set, errDuplicate
				}
				v, ok = m.Value, true
			}
		}
	}
	if !ok || string(v) == "null" {
		return set, nil
	}
	list, isList := jsonscan.StringArray(v)
	if !isList {
		s, isText := rawString(v)
		if !isText {
			return set, errRoleShape
		}
		list = strings.Fields(s)
	}
	for _, r := range list {
		if r == "" {
			continue
		}
		if set == nil {
			set = make(RoleSet, len(list))
		}
		set[r] = struct{}{}
	}
	return set, nil
}

// rawString reads a JSON string; ok is false for anything else.
func rawString(v json.RawMessage) (string, bool) {
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}
