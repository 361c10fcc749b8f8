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

// wrapperGroup is the fx value group the app's own wrappers ([Wrap]) reach
// the chain through: svc's own stages are named in [buildChain].
const wrapperGroup = "svc.http.wrappers"

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

// wrapper is one of the app's own wrappers ([Wrap]).
type wrapper struct {
	name string
	at   Placement
	wrap func(http.Handler) http.Handler
}

// Wrap adds an app's own wrapper to the chain of [Serve], where at places
// it. Two wrappers at one place run in the order of their names (the
// first name outermost): fx hands them over in no set order. It refuses
// (the app fails to start) an empty or repeated name, a nil wrap, a stage
// that is not one of the chain's (the error names them), and
// After("gate").
func Wrap(name string, at Placement, wrap func(http.Handler) http.Handler) fx.Option {
	return fx.Supply(fx.Annotated{Group: wrapperGroup, Target: wrapper{name: name, at: at, wrap: wrap}})
}

// chain gathers the layers around the router, outermost first, as
// [buildChain] adds svc's stages: each app wrapper goes in just before or
// after the stage it names.
type chain struct {
	// wraps are the app's, by name: the order at one place, and of the
	// refusals (fx hands them over in no set order).
	wraps      []wrapper
	stages     []string // every stage added, registered or not
	layers     []layer
	components []string
	err        error // the first stage that could not be built
}

// layer is one wrapper of the chain, svc's or the app's.
type layer struct {
	name string
	wrap func(http.Handler) (http.Handler, error)
}

func newChain(wraps []wrapper) *chain {
	wraps = slices.Clone(wraps)
	slices.SortFunc(wraps, func(a, b wrapper) int { return cmp.Compare(a.name, b.name) })
	return &chain{wraps: wraps}
}

// add appends one of svc's stages, with the app's wrappers placed before
// and after it. err, given by a stage whose building can fail, fails the
// chain.
func (c *chain) add(s stage, err ...error) {
	for _, e := range err {
		if c.err == nil {
			c.err = e
		}
	}
	c.stages = append(c.stages, s.name)
	c.place(Before(s.name))
	if s.wrap != nil {
		c.layers = append(c.layers, layer{name: s.name, wrap: s.wrap})
	}
	c.components = append(c.components, s.components...)
	c.place(After(s.name))
}

// place appends the app's wrappers placed at p, by name.
func (c *chain) place(p Placement) {
	for _, w := range c.wraps {
		if w.at == p && w.wrap != nil {
			wrap := w.wrap
			c.layers = append(c.layers, layer{name: w.name, wrap: func(h http.Handler) (http.Handler, error) { return wrap(h), nil }})
			c.components = append(c.components, w.name)
		}
	}
}

// around wraps router in the layers, the outermost last, or refuses an
// app's wrapper it cannot place. It returns the chain's names, outermost
// first and "router" last, and the components it holds.
func (c *chain) around(router http.Handler) (http.Handler, []string, []string, error) {
	if c.err != nil {
		return nil, nil, nil, c.err
	}
	if err := c.refusals(); err != nil {
		return nil, nil, nil, err
	}
	h := router
	for i := len(c.layers) - 1; i >= 0; i-- {
		var err error
		if h, err = c.layers[i].wrap(h); err != nil {
			return nil, nil, nil, err
		}
	}
	names := make([]string, 0, len(c.layers)+1)
	for _, l := range c.layers {
		names = append(names, l.name)
	}
	return h, append(names, stageRouter), c.components, nil
}

// refusals are the app's wrappers the chain cannot place, each named by
// its option.
func (c *chain) refusals() error {
	var errs []error
	seen := map[string]bool{}
	for _, w := range c.wraps {
		var problem string
		switch {
		case w.name == "":
			problem = "a wrapper needs a name"
		case seen[w.name]:
			problem = "the name is given twice"
		case w.wrap == nil:
			problem = "the wrapper is nil"
		case !slices.Contains(c.stages, w.at.stage):
			problem = "no such stage: place it before or after one of " + strings.Join(c.stages, ", ")
		case w.at.after && w.at.stage == stageGate:
			problem = "the gate reads the router's routes, so nothing goes between it and the router: add the middleware to the router (r.Use)"
		}
		seen[w.name] = true
		if problem != "" {
			errs = append(errs, fmt.Errorf("fxsvc.Wrap(%q, %s): %s", w.name, w.at.option(), problem))
		}
	}
	return errors.Join(errs...)
}
