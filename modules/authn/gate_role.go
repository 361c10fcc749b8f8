package authn

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// KindInsufficientRole is the refusal of a verified caller lacking a role
// the route requires ([RequireRole]): 403 with no challenge (a role is
// not something a client can ask for as it asks for a scope), naming the
// missing roles in missing_roles, never the roles the token holds.
const KindInsufficientRole RefusalKind = "insufficient-role"

// RequireRole is a marker middleware: the routes it guards need an
// authenticated caller holding every named role in Principal.Roles, which
// the verifier fills from the claims its profile names
// (bearer.Profile(bearer.Keycloak()), SVC_AUTHN_PROFILE=keycloak, …;
// without a profile a token holds no role). A caller lacking one gets 403
// insufficient-role naming the route's roles it lacks. It composes with
// [Require], the step-up markers and [RequireDPoP] on every router as
// Require does; several RequireRole on one route each apply. The scopes
// and the step-up are judged first, so that a token short of both gets
// the answer a new token can fix (insufficient-scope or a step-up). An
// empty role, or one with a control character or invalid UTF-8, is
// refused when the gate is installed, as is a role on an excluded route.
func RequireRole(roles ...string) func(http.Handler) http.Handler {
	roles = slices.Clone(roles)
	if roles == nil {
		roles = []string{}
	}
	return func(next http.Handler) http.Handler {
		return &marker{next: next, requires: true, roles: roles}
	}
}

// RequiredRoles tells a router integration the roles the marker requires
// ([RequireRole]); ok is false for another marker (authnhuma joins it to
// the operation's guard, authngrpc accepts it in Rule.With).
func (m *marker) RequiredRoles() (roles []string, ok bool) {
	return slices.Clone(m.roles), m.roles != nil
}

// refuseRole answers a caller lacking one of m's roles. The route's
// scopes and step-up come first, whatever the order of its markers.
func (m *marker) refuseRole(gc *gateCtx, w http.ResponseWriter, r *http.Request, p bearer.Principal) {
	gd := routeGuard(gc, r, m)
	if !p.Scopes.Has(gd.scopes...) || !stepUpMet(gc, gd.step, p) {
		m.refuseGuarded(gc, w, r, p)
		return
	}
	roles := gd.roles
	if !slices.ContainsFunc(m.roles, func(s string) bool { return !slices.Contains(roles, s) }) {
		roles = m.roles
	}
	refuseAtRoute(gc, w, r, RoleRefusal(missingRoles(roles, p.Roles)), true)
}

// RoleRefusal is the 403 insufficient-role refusal naming the missing
// roles, for a router integration that checks the roles itself.
func RoleRefusal(missing []string) *Refusal {
	return &Refusal{Kind: KindInsufficientRole, Roles: missing}
}

// missingRoles are the roles of want that held lacks, in want's order.
func missingRoles(want []string, held bearer.RoleSet) []string {
	var out []string
	for _, r := range want {
		if !held.Has(r) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// describeRole fills the body of an insufficient-role refusal: the
// missing roles, in the detail and as missing_roles.
func (r *Refusal) describeRole(d *svcerrors.Description) {
	quoted := make([]string, len(r.Roles))
	for i, role := range r.Roles {
		quoted[i] = strconv.Quote(role)
	}
	d.Detail = "The caller lacks the role " + strings.Join(quoted, ", ") + " this resource requires."
	if len(r.Roles) > 1 {
		d.Detail = "The caller lacks the roles " + strings.Join(quoted, ", ") + " this resource requires."
	}
	d.Extensions = []svcerrors.Member{{Name: "missing_roles", Value: slices.Clone(r.Roles)}}
}

// addRoles adds the roles of m to the route's, once each.
func (gd *guard) addRoles(roles []string) {
	for _, r := range roles {
		if !slices.Contains(gd.roles, r) {
			gd.roles = append(gd.roles, r)
		}
	}
}

// roleWord is how `check` prints a route's roles: "role=a,b".
func (gd guard) roleWord() []string {
	if len(gd.roles) == 0 {
		return nil
	}
	return []string{"role=" + strings.Join(gd.roles, ",")}
}

// roleProblem is why the route's roles cannot be required, "" when they
// can: an empty role, one with a control character or not UTF-8 (it
// would be written into logs, `check` and the refusal's body).
func (gd guard) roleProblem(excluded bool) string {
	if excluded && len(gd.roles) > 0 {
		return "is excluded from authentication but requires roles (authn.RequireRole): remove it from authn.Exclude or drop the marker"
	}
	for _, r := range gd.roles {
		if r == "" || !utf8.ValidString(r) || strings.ContainsFunc(r, unicode.IsControl) {
			return "requires the role " + strconv.Quote(r) + ": a role is one or more characters of valid UTF-8, none a control character"
		}
	}
	return ""
}
