package authn

import (
	"context"
	"net/http"

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
		refuseAtRoute(gateFrom(r.Context()), w, r, rf, rf.Kind == KindInsufficientScope)
	}
	gatehook.SharedStores = func(b bans.Store, f flood.Store) any { return sharedStores(b, f) }
	gatehook.WithCaller = func(r *http.Request, p any, token string) *http.Request {
		return r.WithContext(withPrincipal(r.Context(), p.(Principal), token))
	}
	gatehook.VerifierErr = func(v any) error {
		if w, ok := v.(appWired); ok {
			return w.settingsError()
		}
		return nil
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

func (h hooked) DiscoveryURL() string {
	if v, ok := h.g.verifier.(*JWTVerifier); ok {
		return v.discoveryURL()
	}
	return ""
}

func (h hooked) Guard(method, pattern string, hd http.Handler, mws []func(http.Handler) http.Handler) (string, []string) {
	gd := guardOf(hd, mws)
	if h.g.exclude.matchPattern(pattern) {
		return "excluded", gd.scopes
	}
	return gd.mode(), gd.scopes
}

func (h hooked) SetLogger(l *zap.Logger) {
	if v, ok := h.g.verifier.(appWired); ok {
		v.setLogger(l)
	}
	h.g.setLogger(l)
}
