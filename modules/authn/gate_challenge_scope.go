package authn

import "strings"

// The 401 challenges name the route's scopes (scope="read write", RFC 6750
// §3), as the MCP authorization specification asks of a protected
// resource: a client that learns of the server from the 401 asks the
// authorization server for those scopes at once, rather than after a 403.

// scoped returns ref, a refusal of the gate before routing, carrying the
// scopes of the route the request is dispatched to when it is a 401 whose
// challenge may name them (authentication-required, token-rejected) and
// the route requires scopes. ref is left as it is: a copy carries them.
func (q *gateRequest) scoped(ref *Refusal) *Refusal {
	if q.routes == nil || ref.Scopes != nil || !namesRouteScopes(ref.Kind) {
		return ref
	}
	_, gd, found := q.routes.find(q.r)
	if !found || len(gd.scopes) == 0 {
		return ref
	}
	own := *ref
	own.Scopes = gd.scopes
	return &own
}

// namesRouteScopes reports whether a challenge of kind k names the
// route's scopes when the refusal carries them.
func namesRouteScopes(k RefusalKind) bool {
	return k == KindAuthenticationRequired || k == KindTokenRejected
}

// scopeParam is the challenge's scope parameter of a 401 that carries the
// route's scopes; nil for none.
func (r *Refusal) scopeParam() []string {
	if len(r.Scopes) == 0 || !namesRouteScopes(r.Kind) {
		return nil
	}
	return []string{`scope="` + strings.Join(r.Scopes, " ") + `"`}
}
