package bearer

import (
	"fmt"
	"strings"
)

// profileNames are the names ParseProfile knows, for its error.
const profileNames = "keycloak[:CLIENT;…], entra, cognito, auth0[:CLAIM;…], okta, generic:PATH;…"

// ParseProfile reads a profile as a setting writes it (fxsvc's
// SVC_AUTHN_PROFILE and an SVC_AUTHN_ISSUERS entry's profile=): a name,
// then for some a colon and arguments separated by semicolons:
//
//	keycloak                    realm roles, and the audience's client roles
//	keycloak:orders;billing     realm roles, and these clients' roles
//	entra | cognito | okta
//	auth0                       permissions
//	auth0:https://x.example/roles   permissions, and this namespaced claim
//	generic:realm_access.roles;groups   these claim paths (see RoleClaims)
//
// It refuses an unknown name, arguments a profile does not take, and
// empty arguments, naming what it accepts.
func ParseProfile(s string) (*ProviderProfile, error) {
	name, args, hasArgs := strings.Cut(s, ":")
	var list []string
	if hasArgs {
		list = strings.Split(args, ";")
		for _, a := range list {
			if a == "" {
				return nil, fmt.Errorf("profile %s has an empty argument: separate the arguments with single semicolons", quoteSetting(s))
			}
		}
	}
	var p *ProviderProfile
	switch name {
	case "keycloak":
		p = Keycloak(list...)
	case "auth0":
		p = Auth0(list...)
	case "generic":
		if !hasArgs {
			return nil, fmt.Errorf("profile %s names no role claim path: write generic:PATH;PATH (e.g. generic:realm_access.roles;groups)", quoteSetting(s))
		}
		p = RoleClaims(list...)
	case "entra", "cognito", "okta":
		if hasArgs {
			return nil, fmt.Errorf("profile %s takes no arguments", quoteSetting(name))
		}
		p = map[string]func() *ProviderProfile{"entra": EntraID, "cognito": Cognito, "okta": Okta}[name]()
	default:
		return nil, fmt.Errorf("profile %s is unknown; known: %s", quoteSetting(s), profileNames)
	}
	if p.problem != "" {
		return nil, fmt.Errorf("profile %s %s", quoteSetting(s), p.problem)
	}
	return p, nil
}

// parseClaimPath splits a role claim path: member names separated by
// dots, a name in double quotes taken as written (it may hold dots). ok is
// false for an empty name, an unclosed quote, or text after a closing
// quote other than a dot.
func parseClaimPath(s string) (path []string, ok bool) {
	for i := 0; i <= len(s); {
		var name string
		if i < len(s) && s[i] == '"' {
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 {
				return nil, false
			}
			name, i = s[i+1:i+1+end], i+end+2
		} else {
			end := strings.IndexAny(s[i:], ".\"")
			if end < 0 {
				end = len(s) - i
			}
			name, i = s[i:i+end], i+end
		}
		if name == "" || (i < len(s) && s[i] != '.') {
			return nil, false
		}
		path = append(path, name)
		if i == len(s) {
			return path, true
		}
		i++ // the dot
		if i == len(s) {
			return nil, false
		}
	}
	return path, true
}

// claimPathString writes a path as parseClaimPath reads it.
func claimPathString(path []string) string {
	parts := make([]string, len(path))
	for i, name := range path {
		if strings.ContainsAny(name, ".\"/") {
			name = `"` + name + `"`
		}
		parts[i] = name
	}
	return strings.Join(parts, ".")
}
