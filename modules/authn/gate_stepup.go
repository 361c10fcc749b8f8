package authn

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// KindInsufficientUserAuthentication is the refusal of a token whose user
// authentication is weaker or older than the route asks ([RequireACR],
// [MaxAge]): 401 with error="insufficient_user_authentication" and the
// route's acr_values and max_age in WWW-Authenticate (RFC 9470 §3).
const KindInsufficientUserAuthentication RefusalKind = "insufficient-user-authentication"

// RequireACR is a marker middleware: the routes it guards need an
// authenticated caller whose token's `acr` claim (a string) is one of
// values. A token with another acr, or none, is refused 401
// insufficient-user-authentication naming the values in acr_values, so
// that the client can ask the user to authenticate again (RFC 9470 step-up).
// It composes with [Require] and [MaxAge] on every router as Require does;
// several RequireACR on one route each apply (a token must hold a value
// all of them list). A value with a space, a quote, a backslash or a
// control character, and a RequireACR without values, are refused when the
// gate is installed.
func RequireACR(values ...string) func(http.Handler) http.Handler {
	st := stepUp{acr: slices.Clone(values), acrSet: true}
	if st.acr == nil {
		st.acr = []string{}
	}
	st.acrEach = [][]string{st.acr}
	return func(next http.Handler) http.Handler {
		return &marker{next: next, requires: true, step: st}
	}
}

// MaxAge is a marker middleware: the routes it guards need an authenticated
// caller whose user authenticated at most d ago, read from the token's
// `auth_time` claim (seconds since the epoch) with the leeway of the
// verifier that verified the token (bearer.Leeway, the issuer's under
// bearer.Issuers; 30 s for a verifier of another kind). A token without
// auth_time, with one that is not a number, or with one further in the
// future than the leeway, is refused 401 insufficient-user-authentication
// with max_age (whole seconds) in WWW-Authenticate. Several MaxAge on one
// route: the shortest applies. A d shorter than one second is refused when
// the gate is installed, since max_age counts whole seconds.
func MaxAge(d time.Duration) func(http.Handler) http.Handler {
	st := stepUp{maxAge: d, ageSet: true}
	return func(next http.Handler) http.Handler {
		return &marker{next: next, requires: true, step: st}
	}
}

// stepUp is what a route asks of the user's authentication (RFC 9470).
type stepUp struct {
	acr    []string // the acr values accepted, when acrSet
	acrSet bool
	maxAge time.Duration // the oldest authentication accepted, when ageSet
	ageSet bool
	// acrEach are the values of each RequireACR of the route: under
	// ACRLevels each asks "at least" its lowest level.
	acrEach [][]string
}

func (s stepUp) none() bool { return !s.acrSet && !s.ageSet }

// and is the requirement of a route carrying both: an acr value both
// accept, the shorter age.
func (s stepUp) and(o stepUp) stepUp {
	out := s
	out.acrEach = append(slices.Clip(s.acrEach), o.acrEach...)
	switch {
	case o.acrSet && s.acrSet:
		out.acr = slices.DeleteFunc(slices.Clone(s.acr), func(v string) bool { return !slices.Contains(o.acr, v) })
	case o.acrSet:
		out.acr, out.acrSet = o.acr, true
	}
	if o.ageSet && (!s.ageSet || o.maxAge < s.maxAge) {
		out.maxAge, out.ageSet = o.maxAge, true
	}
	return out
}

// holds reports whether s asks at least what o asks, so that a refusal
// naming s names o's values too.
func (s stepUp) holds(o stepUp) bool {
	return (!o.acrSet || s.acrSet) && (!o.ageSet || s.ageSet)
}

// problem says why the route can never be served as written; "" when it
// can.
func (s stepUp) problem() string {
	switch {
	case s.acrSet && len(s.acr) == 0:
		return "requires acr values (authn.RequireACR) that no token can hold: name at least one value, and one every RequireACR of the route accepts"
	case s.acrSet && badScope(s.acr) != "":
		return "requires acr value " + badScope(s.acr) + " (authn.RequireACR), which RFC 9470 cannot name in acr_values: a value is printable ASCII other than space, \" and \\"
	case s.ageSet && s.maxAge < time.Second:
		return "has authn.MaxAge below one second: max_age counts whole seconds"
	}
	return ""
}

// met reports whether p's token satisfies s at now, with leeway.
func (s stepUp) met(p bearer.Principal, now time.Time, leeway time.Duration) bool {
	if s.acrSet && !slices.Contains(s.acr, acrOf(p)) {
		return false
	}
	if s.ageSet {
		at, ok := authTimeOf(p)
		if !ok || at.After(now.Add(leeway)) || now.Sub(at) > s.maxAge+leeway {
			return false
		}
	}
	return true
}

// acrOf is the token's acr claim, "" when absent or not a string (no
// route accepts "": RequireACR refuses it at install).
func acrOf(p bearer.Principal) string {
	if p.Claims == nil {
		return ""
	}
	raw := p.Claims.Raw["acr"]
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	// The verifier read the payload as valid JSON: a string without an
	// escape is its bytes between the quotes, with no decoder to run on
	// every request of a step-up route.
	if inner := raw[1 : len(raw)-1]; raw[len(raw)-1] == '"' && bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v
}

// authTimeOf is the token's auth_time claim; ok is false when absent, not
// a JSON number, or not a positive time a clock can hold.
func authTimeOf(p bearer.Principal) (time.Time, bool) {
	if p.Claims == nil {
		return time.Time{}, false
	}
	raw := bytes.TrimSpace(p.Claims.Raw["auth_time"])
	if len(raw) == 0 || !(raw[0] >= '0' && raw[0] <= '9') {
		return time.Time{}, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	// 1<<40 seconds is far past any real auth_time and inside time.Time.
	if err != nil || f <= 0 || f >= 1<<40 || math.IsNaN(f) {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}

// stepUpMet checks s against p with the clock and leeway of the gate's
// verifier.
func stepUpMet(gc *gateCtx, s stepUp, p bearer.Principal) bool {
	if s.none() {
		return true
	}
	var v bearer.Verifier
	if gc != nil {
		v = gc.g.verifier
	}
	if s.acrSet && gc != nil && gc.g.cfg.acrLevels != nil {
		if !gc.g.cfg.acrLevels.admits(s, acrOf(p)) {
			return false
		}
		s.acrSet = false // judged by level, not by value
	}
	now, leeway := bearer.ClockOf(v, p)
	return s.met(p, now(), leeway)
}

// refuseGuarded answers a caller that m's own requirement refused. The
// route's requirement decides the answer, so that it does not depend on the
// order of the markers: a token short of the route's step-up is refused 401
// insufficient-user-authentication (naming the scopes it also lacks), and
// only a token whose authentication suffices gets 403 insufficient-scope.
// Authentication comes before authorization (RFC 9470 §3: the client must
// authenticate the user again, and the new token can carry the scopes).
func (m *marker) refuseGuarded(gc *gateCtx, w http.ResponseWriter, r *http.Request, p bearer.Principal) {
	gd := routeGuard(gc, r, m)
	if !gd.issuers.admits(p) {
		refuseIssuer(gc, w, r)
		return
	}
	if !stepUpMet(gc, gd.step, p) {
		ref := &Refusal{Kind: KindInsufficientUserAuthentication, MaxAge: gd.step.maxAge}
		if gd.step.acrSet {
			ref.ACRValues = acrAsked(gc, gd.step)
		}
		if !p.Scopes.Has(gd.scopes...) {
			ref.Scopes = gd.scopes
		}
		// Counted and recorded beside a missing scope: the token verified
		// (an attempt that succeeded), and the route refused its caller.
		refuseAtRoute(gc, w, r, ref, true)
		return
	}
	refuseAtRoute(gc, w, r, &Refusal{Kind: KindInsufficientScope, Scopes: routeScopes(gc, r, m.scopes)}, true)
}

// routeGuard is the guard of the route r is dispatched to when the gate
// can read it and it holds m's requirement, else the guard of m and the
// markers inside it.
func routeGuard(gc *gateCtx, r *http.Request, m *marker) guard {
	if gc != nil && gc.routes != nil {
		if _, gd, found := gc.routes.find(r); found && gd.step.holds(m.step) && gd.issuers.holds(m.issuers) &&
			!slices.ContainsFunc(m.scopes, func(s string) bool { return !slices.Contains(gd.scopes, s) }) {
			return gd
		}
	}
	return guardOf(m, nil)
}

// words is how `check` prints a route's step-up, beside its scopes.
func (s stepUp) words() []string {
	var out []string
	if s.acrSet {
		out = append(out, "acr="+strings.Join(s.acr, ","))
	}
	if s.ageSet {
		out = append(out, "max_age="+strconv.FormatInt(int64(s.maxAge/time.Second), 10)+"s")
	}
	return out
}

// StepUp tells a router integration what the marker asks of the user's
// authentication (authnhuma documents it, authngrpc accepts only these
// markers in Rule.With): the acr values (nil when any) and the max age (0
// when any).
func (m *marker) StepUp() (acrValues []string, maxAge time.Duration, ok bool) {
	if m.step.none() {
		return nil, 0, false
	}
	return slices.Clone(m.step.acr), m.step.maxAge, true
}

// stepUpParams are the challenge's parameters of a step-up refusal, in
// RFC 9470 §3's order, with its error_description: which of the two the
// route asks tells the client what to do.
func (r *Refusal) stepUpParams() []string {
	desc := "More recent authentication is required"
	if len(r.ACRValues) > 0 {
		desc = "A different authentication level is required"
	}
	params := []string{`error="insufficient_user_authentication"`, `error_description="` + desc + `"`}
	if len(r.ACRValues) > 0 {
		params = append(params, `acr_values="`+strings.Join(r.ACRValues, " ")+`"`)
	}
	if r.MaxAge > 0 {
		params = append(params, `max_age="`+strconv.FormatInt(int64(r.MaxAge/time.Second), 10)+`"`)
	}
	if len(r.Scopes) > 0 {
		params = append(params, `scope="`+strings.Join(r.Scopes, " ")+`"`)
	}
	return params
}

// stepUpMembers repeat the challenge's requirement in the body, for
// clients that read the body rather than WWW-Authenticate.
func (r *Refusal) stepUpMembers() []svcerrors.Member {
	var ms []svcerrors.Member
	if len(r.ACRValues) > 0 {
		ms = append(ms, svcerrors.Member{Name: "acr_values", Value: strings.Join(r.ACRValues, " ")})
	}
	if r.MaxAge > 0 {
		ms = append(ms, svcerrors.Member{Name: "max_age", Value: int64(r.MaxAge / time.Second)})
	}
	return ms
}
