package authn

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/svckit/svc/internal/gatehook"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/flood"
)

// The gate's side that only svc's own packages use (fxsvc, authnhuma):
// reached through package gatehook, so that an app's view of the gate is
// only what an app needs.
func init() {
	gatehook.Of = func(g any) gatehook.Gate { return hooked{g.(*Gate)} }
	gatehook.MuxRoutes = func(mux any) []gatehook.Route { return mux.(*ServeMux).routeList() }
	gatehook.RefuseRoute = func(w http.ResponseWriter, r *http.Request, ref error) {
		rf := ref.(*Refusal)
		// A missing scope or step-up is an authorization refusal.
		refuseAtRoute(gateFrom(r.Context()), w, r, rf, rf.Kind == KindInsufficientScope || rf.Kind == KindInsufficientUserAuthentication)
	}
	gatehook.SharedStores = func(b bans.Store, f flood.Store, i any) any {
		s, _ := i.(IntrospectionStore)
		return sharedStores(b, f, s)
	}
	gatehook.WithCaller = func(r *http.Request, p any, token string) *http.Request {
		return r.WithContext(withPrincipal(r.Context(), p.(Principal), token))
	}
	gatehook.VerifierErr = func(v any) error {
		if w, ok := v.(appWired); ok {
			return w.settingsError()
		}
		return nil
	}
	gatehook.IntrospectionEndpoint = func(v any) string {
		if iv, ok := v.(interface{ introspectionEndpoint() string }); ok {
			return iv.introspectionEndpoint()
		}
		return ""
	}
	gatehook.Challenging = func(ctx context.Context, ref error) error {
		rf := ref.(*Refusal)
		if gc := gateFrom(ctx); gc != nil && gc.g.meta != nil && rf.resourceMetadata != gc.g.meta.url {
			return rf.naming(gc.g.meta.url)
		}
		return rf
	}
}

// appWired is a verifier of this package (*JWTVerifier, Issuers') as
// fxsvc wires it into an app: it reports its settings error before the app
// starts and takes the app's logger unless it was given one.
type appWired interface {
	settingsError() error
	setLogger(*zap.Logger)
}

// hooked is a gate as package gatehook shows it.
type hooked struct{ g *Gate }

func (h hooked) MetadataPath() string {
	if h.g.meta == nil {
		return ""
	}
	return h.g.meta.path
}

func (h hooked) Verifier() any             { return h.g.verifier }
func (h hooked) Excluded(path string) bool { return h.g.exclude.Match(path) }
func (h hooked) BansCallers() bool         { return h.g.bans != nil }
func (h hooked) Documented() bool          { return h.g.cfg.openAPI }

func (h hooked) DPoP() (accepted, required bool) {
	if p := h.g.cfg.dpop; p != nil {
		return true, p.required
	}
	return false, false
}

func (h hooked) DiscoveryURL() string {
	if v, ok := h.g.verifier.(*JWTVerifier); ok {
		return v.discoveryURL()
	}
	return ""
}

// Guard tells how a route is guarded, for the `check` command: excluded,
// anonymous or authenticated, and what it requires: its scopes, then its
// step-up as "acr=v1,v2" ([RequireACR]) and "max_age=300s" ([MaxAge]),
// then, when the gate takes DPoP, "dpop=required" ([RequireDPoP], or
// DPoP required by the gate) or "dpop=allowed".
func (h hooked) Guard(method, pattern string, hd http.Handler, mws []func(http.Handler) http.Handler) (string, []string) {
	gd := guardOf(hd, mws)
	requires := gd.scopes
	if !gd.step.none() {
		requires = append(slices.Clip(requires), gd.step.words()...)
	}
	if h.g.exclude.matchPattern(pattern) {
		return "excluded", requires
	}
	if p := h.g.cfg.dpop; p != nil {
		word := "dpop=allowed"
		if p.required || gd.dpop {
			word = "dpop=required"
		}
		requires = append(slices.Clip(requires), word)
	}
	return gd.mode(), requires
}

func (h hooked) ClaimsChallenges() (checked, named bool) {
	return h.g.cfg.check != nil, h.g.cfg.claimsAuthority != nil
}

func (h hooked) TrustedIssuers() ([]gatehook.Trusted, bool) {
	switch v := h.g.verifier.(type) {
	case *JWTVerifier:
		return v.trusted(), true
	case *issuerSet:
		return v.trusted(), true
	case issuerLister:
		var out []gatehook.Trusted
		for _, iss := range v.Issuers() {
			out = append(out, gatehook.Trusted{Issuer: iss})
		}
		return out, true
	}
	return nil, false
}

// trusted is whom the verifier trusts, for `check`: its issuer, or its
// template with the tenants it stands for.
func (v *JWTVerifier) trusted() []gatehook.Trusted {
	switch {
	case v.tenants != nil:
		return []gatehook.Trusted{{Issuer: v.cfg.issuer, Scope: v.tenants.scope()}}
	case v.cfg.issuer == "":
		return nil
	}
	return []gatehook.Trusted{{Issuer: v.cfg.issuer}}
}

// trusted is whom the members trust, sorted by issuer.
func (s *issuerSet) trusted() []gatehook.Trusted {
	var out []gatehook.Trusted
	for _, v := range s.members {
		out = append(out, v.trusted()...)
	}
	slices.SortFunc(out, func(a, b gatehook.Trusted) int { return strings.Compare(a.Issuer, b.Issuer) })
	return out
}

func (h hooked) SetLogger(l *zap.Logger) {
	if v, ok := h.g.verifier.(appWired); ok {
		v.setLogger(l)
	}
	h.g.setLogger(l)
}
