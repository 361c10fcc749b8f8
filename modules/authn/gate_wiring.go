package authn

import (
	"context"
	"net/http"
	"slices"

	"go.uber.org/zap"

	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/store"
)

// The side of the gate that wires it into an app: fxsvc opens its
// verifier, checks its routes and writes the start line and `check` with
// these; authnhuma describes the gate in an API document and refuses in
// its name. An app that builds its own server rarely needs them.

// Verifier returns the verifier the gate was built with: fxsvc opens and
// closes it with the app and asks it whether it is ready.
func (g *Gate) Verifier() bearer.Verifier { return g.verifier }

// MetadataPath returns the path where the gate serves its
// protected-resource metadata, "" without [Resource]: fxsvc mounts the
// metadata handler there.
func (g *Gate) MetadataPath() string {
	if g.meta == nil {
		return ""
	}
	return g.meta.path
}

// Excluded reports whether path is never authenticated ([Exclude]): fxsvc
// and the components read it to tell a public path.
func (g *Gate) Excluded(path string) bool { return g.exclude.Match(path) }

// BansCallers reports whether the gate bans forging callers ([Bans]), for
// fxsvc's start line and `check`.
func (g *Gate) BansCallers() bool { return g.bans != nil }

// Documented reports whether the gate may describe itself in an API
// document: false after OpenAPI(false). authnhuma reads it.
func (g *Gate) Documented() bool { return g.cfg.openAPI }

// DPoP tells whether the gate takes the DPoP scheme ([DPoP]) and whether it
// requires it on every route, for authnhuma's API document and fxsvc's
// start line.
func (g *Gate) DPoP() (accepted, required bool) {
	if p := g.cfg.dpop; p != nil {
		return true, p.required
	}
	return false, false
}

// DiscoveryURL returns the discovery document of the gate's verifier when
// [Discover] built it, else "": for authnhuma's API document and fxsvc's
// start line.
func (g *Gate) DiscoveryURL() string {
	return bearer.DiscoveryURL(g.verifier)
}

// Guard tells how a route is guarded, for the `check` command: mode is
// "excluded", "anonymous" or "authenticated"; requires lists its scopes,
// then its step-up as "acr=v1,v2" ([RequireACR]; "acr>=2" under
// [ACRLevels]) and "max_age=300s" ([MaxAge]), then its issuers as
// "issuer=https://a,https://b" ([RequireIssuer]), then its roles as
// "role=a,b" ([RequireRole]), then, when the gate takes DPoP, "dpop=required"
// ([RequireDPoP], or DPoP required by the gate) or "dpop=allowed". h is
// the route's handler and mws the middlewares the router runs before it.
func (g *Gate) Guard(method, pattern string, h http.Handler, mws []func(http.Handler) http.Handler) (mode string, requires []string) {
	gd := guardOf(h, mws)
	requires = gd.scopes
	if !gd.step.none() {
		requires = append(slices.Clip(requires), g.stepWords(gd.step)...)
	}
	if gd.issuers != nil {
		requires = append(slices.Clip(requires), gd.issuers.word())
	}
	requires = append(slices.Clip(requires), gd.roleWord()...)
	if g.exclude.matchPattern(pattern) {
		return "excluded", requires
	}
	if p := g.cfg.dpop; p != nil {
		word := "dpop=allowed"
		if p.required || gd.dpop {
			word = "dpop=required"
		}
		requires = append(slices.Clip(requires), word)
	}
	return gd.mode(), requires
}

// ClaimsChallenges reports whether the gate runs a check hook ([Check]),
// which may answer any request with a token by a claims challenge
// ([ClaimsChallenge]), and whether those challenges name realm and
// authorization_uri ([ClaimsChallengeAuthority]): authnhuma documents the
// challenge on every operation when checked is true.
func (g *Gate) ClaimsChallenges() (checked, named bool) {
	return g.cfg.check != nil, g.cfg.claimsAuthority != nil
}

// TrustedIssuers lists whom the gate's verifier trusts, for `check` and
// fxsvc's start line: each issuer, an issuer template as written with the
// tenants it stands for. ok is false for a verifier of the app's own that
// does not list its issuers.
func (g *Gate) TrustedIssuers() (issuers []bearer.TrustedIssuer, ok bool) {
	return bearer.TrustedIssuers(g.verifier)
}

// SetLogger sets where the gate logs its own failures and security
// records, and gives the gate's verifier, when svc built it, the same
// logger unless it was built with [Logger] or has been opened. fxsvc gives
// it the app's logger; a test gives it an observed one. Call it before the
// gate serves.
func (g *Gate) SetLogger(l *zap.Logger) {
	bearer.SetDefaultLogger(g.verifier, l)
	g.setLogger(l)
}

// SharedStores returns the option that keeps the state of the gate's
// [Bans] and [Flood], and its verifier's introspection answers, in the
// stores the app's replicas share, unless they were built with a store of
// their own (bans.Store, flood.Store, bearer.Store win).
// A nil store leaves that component in memory; none turns Bans, Flood or
// Introspect on. fxsvc passes the graph's stores (fxredis.Redis) this way;
// an app that builds its own gate rarely needs it.
func SharedStores(b store.Bans, f store.Flood, introspections store.Introspections) Option {
	return sharedStores(b, f, introspections)
}

// RefuseRoute answers r with ref as a route marker ([Require]) does:
// recorded like the gate's own refusals (a missing scope or step-up as an
// authorization refusal) when the gate admitted r, with the gate's
// challenge, in the registered error format. ref is not changed, so it may
// be shared. authnhuma refuses an operation this way.
func RefuseRoute(w http.ResponseWriter, r *http.Request, ref *Refusal) {
	authz := ref.Kind == KindInsufficientScope || ref.Kind == KindInsufficientUserAuthentication || ref.Kind == KindIssuerRefused
	refuseAtRoute(gateFrom(r.Context()), w, r, ref, authz)
}

// WithGateChallenge returns ref as the gate that admitted ctx's request
// would write it: its Bearer challenge names the protected-resource
// metadata when the gate has a [Resource]. ref itself is not changed. For
// an integration that hands the refusal to its framework's own error path
// (authnhuma); without a gate in ctx, ref is returned as it is.
func WithGateChallenge(ctx context.Context, ref *Refusal) *Refusal {
	if gc := gateFrom(ctx); gc != nil && gc.g.meta != nil && ref.resourceMetadata != gc.g.meta.url {
		return ref.naming(gc.g.meta.url)
	}
	return ref
}
