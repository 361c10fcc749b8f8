package authn

import (
	"context"
	"net/http"
	"slices"
)

// The hooks below are for router integrations that guard a route after
// dispatch or describe the gate in an API schema (authnhuma).

// OpenAPIEnabled reports whether the gate may describe itself in the API
// schema: false after OpenAPI(false).
func (g *Gate) OpenAPIEnabled() bool { return g.cfg.openAPI }

// BansEnabled reports whether the gate bans forging callers (Bans), so
// that the API schema lists the 429 it can answer.
func (g *Gate) BansEnabled() bool { return g.bans != nil }

// RefuseRoute answers r with ref as a route's own marker does: recorded
// like the gate's refusals (a missing scope or step-up as an authorization
// refusal)
// when the gate admitted r, with the gate's challenge, in the registered
// error format.
func RefuseRoute(w http.ResponseWriter, r *http.Request, ref *Refusal) {
	refuseAtRoute(gateFrom(r.Context()), w, r, ref, ref.Kind == KindInsufficientScope || ref.Kind == KindInsufficientUserAuthentication)
}

// NewRefusal returns a refusal as the gate that admitted ctx's request
// would write it: its Bearer challenge names the protected-resource
// metadata when the gate has a Resource. For integrations that hand the
// refusal to their framework's own error path instead of writing it.
func NewRefusal(ctx context.Context, kind RefusalKind, scopes ...string) *Refusal {
	ref := &Refusal{Kind: kind, Scopes: slices.Clone(scopes)}
	if gc := gateFrom(ctx); gc != nil && gc.g.meta != nil {
		ref.resourceMetadata = gc.g.meta.url
	}
	return ref
}
