package authngrpc

import (
	"encoding/json"
	"net/http"

	"github.com/svckit/svc/modules/authn"
)

// RequireRole makes the method need a caller holding every role named
// (Principal.Roles, read where the verifier's profile says), as
// authn.RequireRole does on a route; with scopes too, give the rule of
// [Require] .With(authn.RequireRole(...)). A caller lacking a role is
// refused codes.PermissionDenied with a message naming the roles it
// lacks, never the roles its token holds.
func RequireRole(fullMethod string, roles ...string) Rule {
	return Rule{method: fullMethod}.With(authn.RequireRole(roles...))
}

// isRoleMarker reports whether h is authn.RequireRole applied.
func isRoleMarker(h http.Handler) bool {
	r, ok := h.(interface{ RequiredRoles() ([]string, bool) })
	if !ok {
		return false
	}
	_, ok = r.RequiredRoles()
	return ok
}

// maxRefusalBody bounds what a refusal keeps of its body.
const maxRefusalBody = 4 << 10

// keep keeps the first bytes of the refusal's body and reports all of b
// written.
func (r *refusal) keep(b []byte) int {
	if room := maxRefusalBody - len(r.body); room > 0 {
		r.body = append(r.body, b[:min(room, len(b))]...)
	}
	return len(b)
}

// missingRoles reads the roles an insufficient-role refusal names from its
// body, when the app's error format is svc's JSON (problem details or the
// other registered JSON formats carry missing_roles at the top); none for
// any other answer.
func (r *refusal) missingRoles() []string {
	var body struct {
		MissingRoles []string `json:"missing_roles"`
	}
	if json.Unmarshal(r.body, &body) != nil {
		return nil
	}
	return body.MissingRoles
}
