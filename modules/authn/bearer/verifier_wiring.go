package bearer

import (
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/svckit/svc/modules/store"
)

// What whoever wires a verifier into an app (the gate, fxsvc) asks of it
// beyond Verify. svc's own verifiers (a *JWTVerifier, and what Issuers
// returns) answer each; for a verifier of the app's own, each function
// says what it does instead. They are functions, not methods, so that a
// Verifier of any type can be asked and none has to implement them.

// ownVerifier is a verifier of this package.
type ownVerifier interface {
	Verifier
	settingsError() error
	setLogger(*zap.Logger)
	shareIntrospections(store.Introspections)
	introspectionEndpoint() string
	discoveryURL() string
	trusted() []TrustedIssuer
	issuerLabel(iss string) string
	skew(p Principal) (now func() time.Time, leeway time.Duration)
}

var (
	_ ownVerifier = (*JWTVerifier)(nil)
	_ ownVerifier = (*issuerSet)(nil)
)

// SettingsError returns the error v's Open would return for invalid
// settings (a *ConfigError, or several joined) when this package built v,
// nil for valid settings and for a verifier of the app's own. fxsvc
// reports it with the app's other settings, before anything opens.
func SettingsError(v Verifier) error {
	if o, ok := v.(ownVerifier); ok {
		return o.settingsError()
	}
	return nil
}

// SetDefaultLogger gives v, when this package built it, a logger for its
// key-loading events unless it was built with the Logger option (which
// wins) or has been opened; the gate passes on the app's logger this way,
// so that a provider that is down or misconfigured is never a silent 503.
// A nil l, and a verifier of the app's own, are left as they are.
func SetDefaultLogger(v Verifier, l *zap.Logger) {
	if o, ok := v.(ownVerifier); ok {
		o.setLogger(l)
	}
}

// SetDefaultIntrospectionStore gives v's introspection, when this package
// built v with Introspect, the store the app's replicas share, unless
// the Store option gave it one (which wins). The gate passes fxsvc's
// Redis store this way (authn.SharedStores). Anything else is left as it
// is.
func SetDefaultIntrospectionStore(v Verifier, s store.Introspections) {
	if o, ok := v.(ownVerifier); ok && s != nil {
		o.shareIntrospections(s)
	}
}

// IntrospectionEndpoint returns where v, when this package built it,
// introspects opaque tokens: the endpoint given to Introspect, or the
// discovered one once discovery ran; "" for none. fxsvc's start line
// names it.
func IntrospectionEndpoint(v Verifier) string {
	if o, ok := v.(ownVerifier); ok {
		return o.introspectionEndpoint()
	}
	return ""
}

// DiscoveryURL returns the discovery document v reads when Discover built
// it, else "": for authnhuma's API document and fxsvc's start line.
func DiscoveryURL(v Verifier) string {
	if o, ok := v.(ownVerifier); ok {
		return o.discoveryURL()
	}
	return ""
}

// TrustedIssuers lists whom v trusts, for the gate's `check` and fxsvc's
// start line: each issuer, an issuer template as written with the tenants
// it stands for, sorted by issuer. A verifier of the app's own is asked
// its Issuers() []string when it has that method; ok is false when it
// does not.
func TrustedIssuers(v Verifier) (issuers []TrustedIssuer, ok bool) {
	switch v := v.(type) {
	case ownVerifier:
		return v.trusted(), true
	case interface{ Issuers() []string }:
		var out []TrustedIssuer
		for _, iss := range v.Issuers() {
			out = append(out, TrustedIssuer{Issuer: iss})
		}
		return out, true
	}
	return nil, false
}

// IssuerLabeler returns the function that names the configured issuer
// that verified a principal whose iss is iss, for the gate's metrics and
// security records (the svc.authn.issuer attribute): "" for none, and it
// allocates nothing. It returns nil for a verifier of the app's own: a
// label is never read from a token.
func IssuerLabeler(v Verifier) func(iss string) string {
	if o, ok := v.(ownVerifier); ok {
		return o.issuerLabel
	}
	return nil
}

// ChecksTokenSyntax reports whether v refuses, itself, every token that
// is not an RFC 6750 b64token: true when this package built v (a JWT is
// base64url segments and dots, an opaque token is checked before it is
// introspected), false for a verifier of the app's own. The gate then
// scans a token only when v refused it, so that a cached token does not
// pay for the scan on every request.
func ChecksTokenSyntax(v Verifier) bool {
	_, ok := v.(ownVerifier)
	return ok
}

// ClockOf returns the clock and leeway that judged p's exp when v (which
// may be nil) verified it, so that a later check of another time (the
// gate's step-up, of auth_time) agrees with it: one notion of "now". For a
// verifier of the app's own, time.Now and the default leeway of 30 s.
func ClockOf(v Verifier, p Principal) (now func() time.Time, leeway time.Duration) {
	if o, ok := v.(ownVerifier); ok {
		return o.skew(p)
	}
	return time.Now, defaultLeeway
}

// TrustedIssuer is one issuer a verifier trusts, as [TrustedIssuers] lists
// it for the gate's `check` and fxsvc's start line.
type TrustedIssuer struct {
	// Issuer is the issuer, or an issuer template with {tenantid}.
	Issuer string
	// Scope is "" for an issuer, and for a template the tenants it stands
	// for: "any tenant", "tenant t1" or "tenants t1, t2".
	Scope string
	// Profile is the mapping of the verifier's Profile (where roles and
	// the client id are, the audience rule), "" for none.
	Profile string
}

// trusted is whom the verifier trusts, for `check`: its issuer, or its
// template with the tenants it stands for.
func (v *JWTVerifier) trusted() []TrustedIssuer {
	var profile string
	if v.cfg.profile != nil {
		profile = v.cfg.profile.String()
	}
	switch {
	case v.tenants != nil:
		return []TrustedIssuer{{Issuer: v.cfg.issuer, Scope: v.tenants.scope(), Profile: profile}}
	case v.cfg.issuer == "":
		return nil
	}
	return []TrustedIssuer{{Issuer: v.cfg.issuer, Profile: profile}}
}

// trusted is whom the members trust, sorted by issuer.
func (s *issuerSet) trusted() []TrustedIssuer {
	var out []TrustedIssuer
	for _, v := range s.members {
		out = append(out, v.trusted()...)
	}
	slices.SortFunc(out, func(a, b TrustedIssuer) int { return strings.Compare(a.Issuer, b.Issuer) })
	return out
}

func (v *JWTVerifier) skew(Principal) (func() time.Time, time.Duration) {
	return v.cfg.clock, v.cfg.leeway
}

// skew of several issuers: the set's clock, which judged exp too, and the
// leeway of the issuer that verified p.
func (s *issuerSet) skew(p Principal) (func() time.Time, time.Duration) {
	now := s.clock
	if now == nil {
		now = time.Now
	}
	if v := s.member(p.Issuer); v != nil {
		return now, v.cfg.leeway
	}
	return now, defaultLeeway
}

// settingsError is the error Open returns for invalid settings (a
// *ConfigError, or several joined), nil when they are valid: fxsvc
// reports it with the app's other settings (SettingsError).
func (v *JWTVerifier) settingsError() error { return v.err }

// setLogger gives the verifier a logger for its key-loading events when it
// was built without the Logger option; fxsvc.Authn gives it the app's
// logger (through the gate), so that a provider that is down or
// misconfigured is never a silent 503. It does nothing when Logger was
// given (the caller's choice wins), when l is nil, or once the verifier
// has been opened: the key loader reads its logger without a lock.
func (v *JWTVerifier) setLogger(l *zap.Logger) {
	if l == nil || v.cfg.loggerSet {
		return
	}
	m, loads := v.keys.(*keyManager)
	if !loads {
		// Static keys and invalid settings: nothing is loaded, nothing logged
		// in the background.
		v.cfg.logger = l
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running || m.exited != nil {
		return
	}
	v.cfg.logger, m.log = l, l
}
