// Package gatehook reaches the side of an authentication gate that only
// svc's own packages use: fxsvc wires the gate into an app and `check`,
// authnhuma describes it in an API document and refuses in its name.
// An app never needs these, so package authn does not export them.
//
// Package authn fills the variables in its init. Every package that reads
// them imports authn (it holds an *authn.Gate to pass), so they are set
// before anything reads them. The gate is passed as any because this
// package sits below authn and cannot name its types; a value that is not
// an *authn.Gate is a defect of svc and panics.
package gatehook

import (
	"context"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/flood"
)

// Gate is the side of an *authn.Gate that svc's own packages use.
type Gate interface {
	// Verifier is the authn.Verifier the gate was built with: fxsvc opens
	// and closes it with the app and asks it whether it is ready.
	Verifier() any
	// MetadataPath is where the gate serves its protected-resource
	// metadata, "" without authn.Resource.
	MetadataPath() string
	// Excluded reports whether path is never authenticated
	// (authn.Exclude).
	Excluded(path string) bool
	// BansCallers reports whether the gate bans forging callers
	// (authn.Bans).
	BansCallers() bool
	// Documented reports whether the gate may describe itself in an API
	// document: false after authn.OpenAPI(false).
	Documented() bool
	// DiscoveryURL is the discovery document of the gate's verifier when
	// authn.Discover built it, else "".
	DiscoveryURL() string
	// DPoP tells whether the gate takes the DPoP scheme (authn.DPoP) and
	// whether it requires it on every route.
	DPoP() (accepted, required bool)
	// Guard tells how a route is guarded, for `check`: excluded, anonymous
	// or authenticated, and its scopes.
	Guard(method, pattern string, h http.Handler, mws []func(http.Handler) http.Handler) (mode string, scopes []string)
	// ClaimsChallenges reports whether the gate runs a check hook
	// (authn.Check), which may answer any request with a token by a claims
	// challenge (authn.ClaimsChallenge), and whether those challenges name
	// realm and authorization_uri (authn.ClaimsChallengeAuthority).
	ClaimsChallenges() (checked, named bool)
	// TrustedIssuers lists whom the gate's verifier trusts, for `check`
	// and the start line: each issuer, an issuer template as written with
	// the tenants it stands for. ok is false for a verifier that does not
	// list its issuers.
	TrustedIssuers() (issuers []Trusted, ok bool)
	// SetLogger sets where the gate logs its own failures and security
	// records, and gives the gate's *authn.JWTVerifier the same logger
	// unless it was built with authn.Logger or has been opened.
	SetLogger(l *zap.Logger)
}

// Trusted is one issuer a verifier trusts, as `check` shows it.
type Trusted struct {
	// Issuer is the issuer, or an issuer template with {tenantid}.
	Issuer string
	// Scope is "" for an issuer, and for a template the tenants it stands
	// for: "any tenant", "tenant t1" or "tenants t1, t2".
	Scope string
}

// Route is one pattern registered on an *authn.ServeMux.
type Route struct {
	// Method is the pattern's method, "" when it serves every method.
	Method string
	// Host is the pattern's host part, "" for every host.
	Host string
	// Path is the pattern's path part, without host and method.
	Path    string
	Handler http.Handler
}

var (
	// Of returns the hidden side of g, an *authn.Gate.
	Of func(g any) Gate

	// MuxRoutes returns the patterns registered on mux, an *authn.ServeMux,
	// in registration order.
	MuxRoutes func(mux any) []Route

	// RefuseRoute answers r with ref, an *authn.Refusal, as a route marker
	// does: recorded like the gate's refusals (a missing scope as an
	// authorization refusal) when the gate admitted r, with the gate's
	// challenge, in the registered error format.
	RefuseRoute func(w http.ResponseWriter, r *http.Request, ref error)

	// SharedStores returns the authn.Option that keeps the state of the
	// gate's authn.Bans and authn.Flood, and the introspection answers of
	// its verifier (introspections, an authn.IntrospectionStore), in the
	// stores the app's replicas share, unless they were built with a store
	// of their own. A nil store leaves that component in memory; none turns
	// bans, flood or introspection on.
	SharedStores func(b bans.Store, f flood.Store, introspections any) any

	// WithCaller returns a copy of r whose context carries principal, an
	// authn.Principal, and the token it was verified from, as the gate
	// stores them: for authntest.WithPrincipal.
	WithCaller func(r *http.Request, principal any, token string) *http.Request

	// VerifierErr is the error an *authn.JWTVerifier's Open would return
	// for invalid settings, nil for valid ones and for any other verifier:
	// fxsvc reports it with the app's other settings, before anything
	// opens.
	VerifierErr func(v any) error

	// IntrospectionEndpoint is where v, an authn.Verifier svc built,
	// introspects opaque tokens (the endpoint given to authn.Introspect,
	// or the discovered one); "" for none: for the start line.
	IntrospectionEndpoint func(v any) string

	// Challenging returns ref, an *authn.Refusal, as the gate that admitted
	// ctx's request would write it: its Bearer challenge names the
	// protected-resource metadata when the gate has a Resource. For an
	// integration that hands the refusal to its framework's own error path.
	Challenging func(ctx context.Context, ref error) error
)

// GuardWords says how a route is guarded, for a refusal that names two
// registrations, in the words of the package whose markers guard it: pkg
// is "authn" (route markers) or "authnhuma" (operation options).
func GuardWords(pkg string, anonymous, requires bool, scopes []string) string {
	require := pkg + ".Require(" + strings.Join(scopes, ", ") + ")"
	switch {
	case anonymous && requires:
		return pkg + ".Anonymous and " + require
	case anonymous:
		return pkg + ".Anonymous"
	case len(scopes) > 0:
		return require
	}
	return "authenticated"
}
