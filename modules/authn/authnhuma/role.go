package authnhuma

import (
	"net/http"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svckit/svc/modules/authn"
)

// roleRequirer is authn.RequireRole, which joins the operation's guard as
// the step-up markers do.
type roleRequirer interface {
	RequiredRoles() (roles []string, ok bool)
}

// rolesOf returns the roles mw requires when it is authn.RequireRole.
func rolesOf(mw func(http.Handler) http.Handler) ([]string, bool) {
	r, ok := mw(probe).(roleRequirer)
	if !ok {
		return nil, false
	}
	return r.RequiredRoles()
}

// RequireRole makes an operation need an authenticated caller holding
// every named role (Principal.Roles, read where the verifier's profile
// says); a caller lacking one gets 403 insufficient-role naming the roles
// it lacks, never the token's own. It is authn.RequireRole for Huma, as
// Require is authn.Require, and [Use] takes authn.RequireRole to the same
// effect. The operation's scopes and step-up are judged first. The API
// document lists the roles under the operation's 403 and in its
// x-svc-roles extension; `check` lists them as role=….
//
//	huma.Delete(api, "/orders/{id}", del, authnhuma.RequireRole("order-admin"))
//
// On a group it applies as [Require] does (documentation only on a bare
// humachi or humago adapter, enforced behind [NewChi] and [NewGo]).
func RequireRole(roles ...string) func(*huma.Operation) {
	marker := authn.RequireRole(roles...)
	return func(op *huma.Operation) { addStepUps(op, []func(http.Handler) http.Handler{marker}) }
}

// rolesDoc are the roles an operation requires, once each, in the order
// its markers name them.
func rolesDoc(gd opGuard) []string {
	var out []string
	for _, m := range gd.stepUps {
		roles, _ := rolesOf(m)
		for _, r := range roles {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// forbiddenDoc is the description of an operation's 403 ("" for none):
// the scopes it requires, the roles; and its header, WWW-Authenticate
// when a scope may be missing (insufficient-role has no challenge).
func forbiddenDoc(gd opGuard) (description, header string) {
	roles := rolesDoc(gd)
	var parts []string
	if len(gd.scopes) > 0 {
		parts = append(parts, "the token does not grant a scope this operation requires: "+strings.Join(gd.scopes, " "))
	}
	if len(roles) > 0 {
		parts = append(parts, "the caller lacks a role this operation requires (insufficient-role, naming the missing roles): "+strings.Join(roles, ", "))
	}
	if len(parts) == 0 {
		return "", ""
	}
	if len(gd.scopes) > 0 {
		header = "WWW-Authenticate"
	}
	s := strings.Join(parts, "; or ")
	return strings.ToUpper(s[:1]) + s[1:] + ".", header
}

// documentRoles writes the operation's roles in its x-svc-roles
// extension.
func documentRoles(op *huma.Operation, gd opGuard) {
	if roles := rolesDoc(gd); len(roles) > 0 {
		if op.Extensions == nil {
			op.Extensions = map[string]any{}
		}
		op.Extensions["x-svc-roles"] = roles
	}
}

// isRoleMarker reports whether mw is authn.RequireRole.
func isRoleMarker(mw func(http.Handler) http.Handler) bool {
	_, ok := rolesOf(mw)
	return ok
}
