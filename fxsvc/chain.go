package fxsvc

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"go.uber.org/fx"
)

// The handler chain of [Serve], outermost first: a request meets the
// stages in this order, and the app's router last.
//
//	telemetry   request ID, the caller's address (TrustedProxies), access
//	            log, HTTP metrics, server span: always, so that every
//	            answer below is measured and logged as sent
//	errors      the error format (Errors): every refusal below takes it
//	cors        CORS (CORS): outside the gate, so that a preflight needs no
//	            token and a refusal carries the CORS headers; outside
//	            health too, on purpose: a probe carries no Origin and
//	            passes through untouched, and a status page on another
//	            origin may read /readyz
//	health      /livez and /readyz (Health), answered before any token
//	components  the components behind the gate (RateLimits, Idempotency,
//	            Conditional, ResponseCache): they record themselves for
//	            the routes' markers, which do the work after the gate
//	gate        authentication (Authn): it reads the router's routes, so
//	            nothing goes between it and the router
//	router      the app's router, with its route markers
//
// An app's own wrapper goes before or after a stage ([Wrap]).
const (
	stageTelemetry  = "telemetry"
	stageErrors     = "errors"
	stageCORS       = "cors"
	stageHealth     = "health"
	stageComponents = "components"
	stageGate       = "gate"
	stageRouter     = "router"
)

// stages is the chain above, outermost first.
var stages = []string{stageTelemetry, stageErrors, stageCORS, stageHealth, stageComponents, stageGate}

// wrapperGroup is the fx value group [Serve] collects the chain's parts
// from.
const wrapperGroup = "svc.http.wrappers"

// part is one wrapper of the chain: one of svc's, in its stage, or one of
// the app's, placed before or after a stage.
type part struct {
	stage string
	// name is what the chain shows; components are what the start line
	// lists (the gate's part is named "gate", its component "authn").
	name       string
	components []string
	at         Placement // an app's part; zero for svc's own
	// wrap puts the part around h; nil for one of svc's own leaves the
	// stage out (no component registered).
	wrap func(h http.Handler) (http.Handler, error)
}

// stagePart is one of svc's own parts, in its stage.
func stagePart(stage, name string, wrap func(http.Handler) (http.Handler, error)) part {
	return part{stage: stage, name: name, components: []string{name}, wrap: wrap}
}

// provideStage adds one of svc's own parts, built by newPart from the
// graph, to the chain.
func provideStage(newPart any) fx.Option {
	return fx.Provide(fx.Annotate(newPart, fx.ResultTags(`group:"`+wrapperGroup+`"`)))
}

// Placement is where an app's wrapper goes in the chain: [Before] or
// [After] one of its stages.
type Placement struct {
	stage string
	after bool
}

// Before places a wrapper just outside a stage: telemetry, errors, cors,
// health, components or gate. Before("gate") sees the request once the
// error format, CORS, health and the components have, and before any
// token is read.
func Before(stage string) Placement { return Placement{stage: stage} }

// After places a wrapper just inside a stage: telemetry, errors, cors,
// health or components. After("gate") is refused: the gate reads the
// router's routes, so a middleware there belongs on the router (r.Use).
func After(stage string) Placement { return Placement{stage: stage, after: true} }

// option is the placement as the app wrote it, for a refusal.
func (p Placement) option() string {
	if p.after {
		return fmt.Sprintf("fxsvc.After(%q)", p.stage)
	}
	return fmt.Sprintf("fxsvc.Before(%q)", p.stage)
}

// Wrap adds an app's own wrapper to the chain of [Serve], where at places
// it. Two wrappers at one place run in the order of their names (the
// first name outermost): fx hands them over in no set order. It refuses
// (the app fails to start) an empty or repeated name, a nil wrap, a stage
// that is not one of the chain's (the error names them), and
// After("gate").
func Wrap(name string, at Placement, wrap func(http.Handler) http.Handler) fx.Option {
	p := part{name: name, components: []string{name}, at: at}
	if wrap != nil {
		p.wrap = func(h http.Handler) (http.Handler, error) { return wrap(h), nil }
	}
	return fx.Supply(fx.Annotated{Group: wrapperGroup, Target: p})
}

// chain orders the parts, outermost first, or refuses an app's part it
// cannot place.
func chain(parts []part) ([]part, error) {
	var errs []error
	seen := map[string]bool{}
	for _, p := range parts {
		if p.stage != "" {
			continue
		}
		var problem string
		switch {
		case p.name == "":
			problem = "a wrapper needs a name"
		case seen[p.name]:
			problem = "the name is given twice"
		case p.wrap == nil:
			problem = "the wrapper is nil"
		case !slices.Contains(stages, p.at.stage):
			problem = "no such stage: place it before or after one of " + strings.Join(stages, ", ")
		case p.at.after && p.at.stage == stageGate:
			problem = "the gate reads the router's routes, so nothing goes between it and the router: add the middleware to the router (r.Use)"
		}
		seen[p.name] = true
		if problem != "" {
			errs = append(errs, fmt.Errorf("fxsvc.Wrap(%q, %s): %s", p.name, p.at.option(), problem))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	out := make([]part, 0, len(parts))
	pick := func(keep func(part) bool) {
		start := len(out)
		for _, p := range parts {
			if keep(p) {
				out = append(out, p)
			}
		}
		slices.SortFunc(out[start:], func(a, b part) int { return cmp.Compare(a.name, b.name) })
	}
	for _, s := range stages {
		pick(func(p part) bool { return p.stage == "" && p.at == Before(s) })
		pick(func(p part) bool { return p.stage == s && p.wrap != nil })
		pick(func(p part) bool { return p.stage == "" && p.at == After(s) })
	}
	return out, nil
}

// applyChain wraps the router in the chain's parts, the outermost last.
func applyChain(router http.Handler, parts []part) (http.Handler, []string, error) {
	ordered, err := chain(parts)
	if err != nil {
		return nil, nil, err
	}
	h := router
	for i := len(ordered) - 1; i >= 0; i-- {
		if h, err = ordered[i].wrap(h); err != nil {
			return nil, nil, err
		}
	}
	names := make([]string, 0, len(ordered)+1)
	for _, p := range ordered {
		names = append(names, p.name)
	}
	return h, append(names, stageRouter), nil
}
