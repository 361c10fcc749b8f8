package bearer

import (
	"strings"
)

// ProviderProfile says how one identity provider shapes its access tokens:
// which claims hold the caller's roles, which the client id, and what
// audience rule holds. Give it to a verifier with [Profile]; the verifier
// then fills Principal.Roles and Principal.ClientID, which authn.RequireRole
// reads. Build one with [Keycloak], [EntraID], [Cognito], [Auth0], [Okta]
// or [RoleClaims] (any provider), or by name with [ParseProfile].
//
// A profile never widens what a token must carry: iss, exp, the signature
// and the audience (aud, or the claim the profile names instead) are
// checked as without one.
type ProviderProfile struct {
	name string
	// roles are the claim paths read for roles, each a list of member
	// names from the top-level claims down.
	roles [][]string
	// clients are Keycloak's clients whose resource_access roles count;
	// none: the verifier's audience (resolved by Profile).
	clients   []string
	keycloak  bool
	clientIDs []string // the claims naming the client, the first present wins
	// audienceClaim, when set, holds the audience in place of aud (a
	// string equal to the verifier's audience): Cognito's client_id.
	audienceClaim string
	// tokenUse, when set, is what token_use must be (Cognito).
	tokenUse string
	// entra accepts the tenant's v1 issuer beside its v2 one (and the
	// reverse), as both sign with the same keys.
	entra bool
	// altIssuer and altTenant are the paired Entra issuer and its tenant,
	// set by Profile for an Entra issuer.
	altIssuer, altTenant string
	// problem is why the profile cannot be used; Profile refuses it.
	problem string
}

// Keycloak is the profile of Keycloak access tokens: roles from
// realm_access.roles and from resource_access.<client>.roles for each
// client named (none: the verifier's audience, the client Keycloak names
// in aud when the token carries its roles), the client id from azp, and
// the audience in aud.
func Keycloak(clients ...string) *ProviderProfile {
	p := &ProviderProfile{name: "keycloak", roles: [][]string{{"realm_access", "roles"}},
		clients: cloneNonEmpty(clients), keycloak: true, clientIDs: []string{"azp"}}
	if len(p.clients) != len(clients) {
		p.problem = "names an empty Keycloak client"
	}
	return p
}

// EntraID is the profile of Microsoft Entra ID access tokens, v1 and v2:
// roles from roles (app roles: an app-only token's application
// permissions, a user's assigned roles), scopes from scp as without a
// profile, the client id from azp (v2) or appid (v1), the audience in aud.
// A verifier of the v2 issuer https://login.microsoftonline.com/<tid>/v2.0
// also accepts the same tenant's v1 issuer https://sts.windows.net/<tid>/
// (and the reverse), whose tokens the same keys sign; tid must name the
// tenant either way. An issuer template ({tenantid}) accepts only its own
// form.
func EntraID() *ProviderProfile {
	return &ProviderProfile{name: "entra", roles: [][]string{{"roles"}}, clientIDs: []string{"azp", "appid"}, entra: true}
}

// Cognito is the profile of Amazon Cognito access tokens, which carry no
// aud: the audience is client_id (it must equal the verifier's audience,
// the app client id), token_use must be "access" (an ID token of the same
// pool, token_use "id", is refused with ReasonTokenType), roles come from
// cognito:groups and the client id from client_id.
func Cognito() *ProviderProfile {
	return &ProviderProfile{name: "cognito", roles: [][]string{{"cognito:groups"}}, clientIDs: []string{"client_id"},
		audienceClaim: "client_id", tokenUse: "access"}
}

// Auth0 is the profile of Auth0 access tokens: roles from permissions
// (RBAC with "Add Permissions in the Access Token") and from each
// namespaced claim named (the full claim name an Action sets, e.g.
// "https://orders.example.com/roles"), the client id from azp, the
// audience in aud.
func Auth0(namespacedClaims ...string) *ProviderProfile {
	p := &ProviderProfile{name: "auth0", roles: [][]string{{"permissions"}}, clientIDs: []string{"azp"}}
	for _, c := range namespacedClaims {
		if c == "" {
			p.problem = "names an empty Auth0 claim"
			continue
		}
		p.roles = append(p.roles, []string{c})
	}
	return p
}

// Okta is the profile of Okta access tokens: roles from groups (a groups
// claim added to the authorization server), scopes from scp as without a
// profile, the client id from cid, the audience in aud.
func Okta() *ProviderProfile {
	return &ProviderProfile{name: "okta", roles: [][]string{{"groups"}}, clientIDs: []string{"cid"}}
}

// RoleClaims is the profile of any provider: roles from each claim path
// given, as Quarkus's role-claim-path reads them. A path is member names
// separated by dots ("realm_access.roles"); a name holding a dot or a
// slash is written in double quotes ("\"https://example.com/roles\""). The
// client id comes from azp, else client_id; the audience is in aud.
func RoleClaims(paths ...string) *ProviderProfile {
	p := &ProviderProfile{name: "generic", clientIDs: []string{"azp", "client_id"}}
	if len(paths) == 0 {
		p.problem = "names no role claim path"
	}
	for _, s := range paths {
		path, ok := parseClaimPath(s)
		if !ok {
			p.problem = "has the role claim path " + quoteSetting(s) + ", which is not member names separated by dots (a name with a dot in double quotes)"
			continue
		}
		p.roles = append(p.roles, path)
	}
	return p
}

// Profile makes the verifier read roles and the client id where p says,
// and apply p's audience rule. A nil profile or one with a problem (an
// empty client or claim, a path that does not parse) is refused.
func Profile(p *ProviderProfile) VerifierOption {
	return func(c *verifierConfig) {
		switch {
		case p == nil:
			c.refuse("Profile", "is nil")
		case p.problem != "":
			c.refuse("Profile", "("+p.name+") "+p.problem)
		default:
			own := *p
			if own.keycloak && len(own.clients) == 0 {
				own.clients = []string{c.audience}
			}
			for _, cl := range own.clients {
				own.roles = append(clonePaths(own.roles), []string{"resource_access", cl, "roles"})
			}
			own.clients = nil
			if own.entra {
				own.altIssuer, own.altTenant = entraPair(c.issuer)
			}
			c.profile = &own
		}
	}
}

// clonePaths returns a copy of s, so that a profile shared by several
// verifiers never has its paths appended to in place.
func clonePaths(s [][]string) [][]string { return append([][]string(nil), s...) }

// Name is the profile's name: keycloak, entra, cognito, auth0, okta or
// generic.
func (p *ProviderProfile) Name() string { return p.name }

// String is the mapping the profile applies, as `check` and the start line
// show it: where roles and the client id are, and the audience rule.
func (p *ProviderProfile) String() string {
	var roles []string
	for _, path := range p.roles {
		roles = append(roles, claimPathString(path))
	}
	for _, cl := range p.clients {
		roles = append(roles, claimPathString([]string{"resource_access", cl, "roles"}))
	}
	if p.keycloak && len(p.clients) == 0 && !p.hasResourceAccess() {
		roles = append(roles, "resource_access.<audience>.roles")
	}
	s := p.name + ": roles " + strings.Join(roles, " ") + "; client id " + strings.Join(p.clientIDs, " or ")
	if p.audienceClaim != "" {
		s += "; audience " + p.audienceClaim
	} else {
		s += "; audience aud"
	}
	if p.tokenUse != "" {
		s += "; token_use " + p.tokenUse
	}
	if p.entra {
		s += "; v1 and v2 issuers"
	}
	return s
}

func (p *ProviderProfile) hasResourceAccess() bool {
	for _, path := range p.roles {
		if len(path) == 3 && path[0] == "resource_access" {
			return true
		}
	}
	return false
}

func cloneNonEmpty(s []string) []string {
	var out []string
	for _, v := range s {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
