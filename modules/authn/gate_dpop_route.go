package authn

import "net/http"

// RequireDPoP is a marker middleware: the routes it guards take an access
// token only with the DPoP scheme and a proof (RFC 9449), while the
// gate's other routes also take Bearer (authn.DPoP(v, false)). A token
// sent as Bearer there is refused 401 token-rejected, reason
// dpop-required, with the DPoP challenge. It composes with [Require] and
// the step-up markers on every router as Require does, and is checked
// before the route's scopes. The gate refuses at install a route carrying
// it when the gate takes no DPoP (no [DPoP] option), and one that is also
// [Anonymous] or excluded.
func RequireDPoP(next http.Handler) http.Handler {
	return &marker{next: next, requires: true, dpop: true}
}

// DPoPRequired tells a router integration that the marker is
// [RequireDPoP] (authnhuma joins it to the operation's guard, authngrpc
// accepts it in Rule.With).
func (m *marker) DPoPRequired() bool { return m.dpop }

// dpopRequiredRefusal is the refusal of a Bearer token on a route that
// requires DPoP, with the gate's DPoP challenge when it has one.
func dpopRequiredRefusal(gc *gateCtx) *Refusal {
	if gc != nil && gc.g.cfg.dpop != nil {
		return gc.g.cfg.dpop.refusal(ReasonDPoPRequired, "invalid_token", "")
	}
	return &Refusal{Kind: KindTokenRejected, Reason: ReasonDPoPRequired}
}
