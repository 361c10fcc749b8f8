package authnhuma

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svckit/svc/modules/authn"
)

// stepUpper is an authn route marker asking a step-up: authn.RequireACR
// and authn.MaxAge. [Use] and [Group] take them like any marker and make
// them part of the operation's guard: read by the gate before routing,
// checked before the markers of the components behind the gate, listed by
// `check` and described in the API document.
type stepUpper interface {
	StepUp() (acrValues []string, maxAge time.Duration, ok bool)
}

// dpopRequirer is authn.RequireDPoP, which joins the operation's guard as
// the step-up markers do.
type dpopRequirer interface{ DPoPRequired() bool }

// stepUpOf reports whether mw is a step-up marker.
func stepUpOf(mw func(http.Handler) http.Handler) (stepUpper, bool) {
	s, ok := mw(probe).(stepUpper)
	if !ok {
		return nil, false
	}
	_, _, ok = s.StepUp()
	return s, ok
}

// requiresDPoP reports whether mw is authn.RequireDPoP.
func requiresDPoP(mw func(http.Handler) http.Handler) bool {
	d, ok := mw(probe).(dpopRequirer)
	return ok && d.DPoPRequired()
}

// issuerRequirer is authn.RequireIssuer, which joins the guard too.
type issuerRequirer interface{ Issuers() ([]string, bool) }

// requiresIssuer reports whether mw is authn.RequireIssuer.
func requiresIssuer(mw func(http.Handler) http.Handler) bool {
	i, ok := mw(probe).(issuerRequirer)
	if !ok {
		return false
	}
	_, ok = i.Issuers()
	return ok
}

// splitStepUps tells the markers that join the guard (step-up markers,
// authn.RequireDPoP, authn.RequireIssuer and authn.RequireRole) among
// markers from the others.
func splitStepUps(markers []func(http.Handler) http.Handler) (steps, rest []func(http.Handler) http.Handler) {
	for _, m := range markers {
		if _, ok := stepUpOf(m); ok || requiresDPoP(m) || requiresIssuer(m) || isRoleMarker(m) {
			steps = append(steps, m)
		} else {
			rest = append(rest, m)
		}
	}
	return steps, rest
}

// addStepUps puts the guard's markers into op's guard.
func addStepUps(op *huma.Operation, steps []func(http.Handler) http.Handler) {
	if len(steps) > 0 {
		update(op, func(gd *opGuard) {
			gd.requires = true
			gd.stepUps = append(gd.stepUps, steps...)
			gd.dpop = gd.dpop || slices.ContainsFunc(steps, requiresDPoP)
		}, true)
	}
}

// admitStepUp runs the operation's guard as its route markers do, step-up
// included, so that a step-up is enforced on a bare adapter too, and
// decides as they decide (a step-up short wins over a scope short).
func admitStepUp(ctx huma.Context, gd opGuard) bool {
	r, w := unwrap(ctx)
	passed := false
	var h http.Handler = http.HandlerFunc(func(http.ResponseWriter, *http.Request) { passed = true })
	for i := len(gd.stepUps) - 1; i >= 0; i-- {
		h = gd.stepUps[i](h)
	}
	authn.Require(gd.scopes...)(h).ServeHTTP(w, r.WithContext(ctx.Context()))
	return passed
}

// stepUpDoc says, for the 401 of the API document, what the operation's
// step-up asks: the acr values every RequireACR accepts, the shortest
// MaxAge.
func stepUpDoc(gd opGuard) string {
	var acr []string
	acrSet := false
	var age time.Duration
	for _, m := range gd.stepUps {
		s, ok := stepUpOf(m)
		if !ok {
			continue // authn.RequireDPoP
		}
		values, maxAge, _ := s.StepUp()
		if values != nil {
			if acrSet {
				acr = slices.DeleteFunc(acr, func(v string) bool { return !slices.Contains(values, v) })
			} else {
				acr, acrSet = values, true
			}
		}
		if maxAge > 0 && (age == 0 || maxAge < age) {
			age = maxAge
		}
	}
	var parts []string
	if acrSet {
		parts = append(parts, "acr_values="+strings.Join(acr, " "))
	}
	if age > 0 {
		parts = append(parts, "max_age="+strconv.FormatInt(int64(age/time.Second), 10))
	}
	return strings.Join(parts, ", ")
}
