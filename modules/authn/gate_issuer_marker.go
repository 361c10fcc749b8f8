package authn

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/svckit/svc/modules/authn/bearer"
)

// KindIssuerRefused is the refusal of a verified token from an issuer the
// route does not accept ([RequireIssuer]): 403, no challenge (a new token
// from the same issuer would fare no better). The body never names the
// token's issuer.
const KindIssuerRefused RefusalKind = "issuer-refused"

// RequireIssuer is a marker middleware: the routes it guards serve only
// callers whose token one of issuers issued. The caller's issuer is the
// verified principal's (its iss, or the issuer its introspection answer
// names); under bearer.Issuers an issuer template as configured (with
// {tenantid}) matches every tenant the verifier trusts under it. A caller
// of another issuer is refused 403 issuer-refused, checked after
// [RequireDPoP] and before the route's step-up and scopes, whatever the
// order of the markers. It composes with [Require] on every router as
// Require does (authnhuma.Use, authngrpc's Rule.With); several
// RequireIssuer on one route each apply. `check` lists it as
// "issuer=<issuers>". A RequireIssuer without issuers, and, with a
// verifier svc built, one naming an issuer the verifier does not trust,
// are refused when the gate is installed.
func RequireIssuer(issuers ...string) func(http.Handler) http.Handler {
	rule := &issuerRule{issuers: slices.Clone(issuers)}
	return func(next http.Handler) http.Handler {
		return &marker{next: next, requires: true, issuers: rule}
	}
}

// Issuers tells a router integration that the marker is [RequireIssuer]
// and which issuers it accepts (authnhuma joins it to the operation's
// guard, authngrpc accepts it in Rule.With).
func (m *marker) Issuers() ([]string, bool) {
	if m.issuers == nil {
		return nil, false
	}
	return slices.Clone(m.issuers.issuers), true
}

// issuerRule is the issuers a route accepts; a nil rule accepts any.
type issuerRule struct {
	issuers []string
	joined  bool // the issuers several RequireIssuer accept in common
}

// and is the rule of a route carrying both: the issuers both accept.
func (a *issuerRule) and(b *issuerRule) *issuerRule {
	switch {
	case b == nil:
		return a
	case a == nil:
		return b
	}
	both := slices.DeleteFunc(slices.Clone(a.issuers), func(iss string) bool { return !slices.Contains(b.issuers, iss) })
	return &issuerRule{issuers: both, joined: true}
}

// holds reports whether a asks at least what b asks.
func (a *issuerRule) holds(b *issuerRule) bool { return b == nil || a != nil }

// admits reports whether p's issuer is one the rule names: p's iss as it
// is, or a tenant of an issuer template it names. The principal verified,
// so its iss is one the verifier trusts; the template (which the install
// check holds to be one the verifier trusts) only tells which.
func (a *issuerRule) admits(p bearer.Principal) bool {
	if a == nil {
		return true
	}
	for _, iss := range a.issuers {
		if iss == p.Issuer || tenantOf(iss, p.Issuer) {
			return true
		}
	}
	return false
}

// tenantPlaceholder stands for the tenant in an issuer template, as
// bearer.Issuers and bearer.Discover write it.
const tenantPlaceholder = "{tenantid}"

// tenantOf reports whether iss is a tenant of template: the template with
// a tenant id (no '/', none of the template's braces) in place of
// {tenantid}.
func tenantOf(template, iss string) bool {
	prefix, suffix, ok := strings.Cut(template, tenantPlaceholder)
	if !ok || len(iss) <= len(prefix)+len(suffix) || !strings.HasPrefix(iss, prefix) || !strings.HasSuffix(iss, suffix) {
		return false
	}
	return !strings.ContainsAny(iss[len(prefix):len(iss)-len(suffix)], "/{}")
}

// problem says why the route's rule can never admit a caller; "" when it
// can.
func (a *issuerRule) problem(v bearer.Verifier) string {
	if a == nil {
		return ""
	}
	if len(a.issuers) == 0 {
		if a.joined {
			return "has authn.RequireIssuer markers that accept no issuer in common: every one of them applies"
		}
		return "has authn.RequireIssuer without issuers: name the issuers whose callers the route serves"
	}
	if bearer.IssuerLabeler(v) == nil {
		// A verifier of the app's own: its issuers are its affair.
		return ""
	}
	trusted, _ := bearer.TrustedIssuers(v)
	for _, iss := range a.issuers {
		if !slices.ContainsFunc(trusted, func(t bearer.TrustedIssuer) bool { return t.Issuer == iss || tenantOf(t.Issuer, iss) }) {
			return "requires issuer " + strconv.Quote(iss) + " (authn.RequireIssuer), which the verifier does not trust: name an issuer of bearer.New or bearer.Issuers as configured"
		}
	}
	return ""
}

// word is how `check` prints the rule, beside the route's scopes.
func (a *issuerRule) word() string { return "issuer=" + strings.Join(a.issuers, ",") }

// refuseIssuer answers a verified caller whose issuer the route does not
// accept. Counted and recorded as an authorization refusal: the token
// verified.
func refuseIssuer(gc *gateCtx, w http.ResponseWriter, r *http.Request) {
	refuseAtRoute(gc, w, r, &Refusal{Kind: KindIssuerRefused}, true)
}
