package fxsvc

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/internal/behind"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/conditional"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/responsecache"
)

type componentsIn struct {
	fx.In
	Limiter     *ratelimit.Limiter       `optional:"true"`
	Idempotency *idempotency.Component   `optional:"true"`
	Conditional *conditional.Component   `optional:"true"`
	Cache       *responsecache.Component `optional:"true"`
	Router      *chi.Mux                 `optional:"true"`
	ChiRouter   chi.Router               `optional:"true"`
	ServeMux    *authn.ServeMux          `optional:"true"`
}

// component is one of the components behind the gate, as the
// components stage and its check at start know it.
type component struct {
	name     string
	option   string // the fxsvc option that registers it
	val      any    // nil when the app did not register it
	describe routeNoter
	// markers name, by what describe says of a route ("cache=shared"),
	// the marker that said it; marker names any other ("ratelimit=10/s").
	markers map[string]string
	marker  string
}

func (in componentsIn) all() []component {
	return []component{
		{"conditional", "fxsvc.Conditional()", nilIfNone(in.Conditional), behind.Describer("conditional"),
			map[string]string{"conditional=etags": "conditional.ETags", "conditional=match": "conditional.Match", "conditional=require": "conditional.Require"}, ""},
		{"idempotency", "fxsvc.Idempotency()", nilIfNone(in.Idempotency), behind.Describer("idempotency"),
			map[string]string{"idempotency=required": "idempotency.Required", "idempotency=optional": "idempotency.Optional"}, ""},
		{"ratelimit", "fxsvc.RateLimits()", nilIfNone(in.Limiter), behind.Describer("ratelimit"), nil, "ratelimit.Limit"},
		{"responsecache", "fxsvc.ResponseCache()", nilIfNone(in.Cache), behind.Describer("responsecache"),
			map[string]string{"cache=anonymous": "responsecache.Cached", "cache=shared": "responsecache.Shared"}, ""},
	}
}

// nilIfNone keeps a nil pointer from becoming a non-nil any.
func nilIfNone[T any](p *T) any {
	if p == nil {
		return nil
	}
	return p
}

// newComponents builds the components stage: one middleware that puts the
// app's set of components on each request, for the routes' markers to
// find. It refuses, naming the option to add, a route whose marker's
// component the app did not register: the marker would otherwise work
// with defaults nobody chose.
func newComponents(in componentsIn) (stage, error) {
	all := in.all()
	if err := checkMarkers(in, all); err != nil {
		return stage{}, err
	}
	var vals []any
	var names []string
	for _, c := range all {
		if c.val != nil {
			vals = append(vals, c.val)
			names = append(names, c.name)
		}
	}
	s := stage{name: stageComponents, components: names}
	if len(vals) == 0 {
		return s, nil // no stage: no component, and no marker needs one
	}
	set, err := behind.NewComponents(vals...)
	if err != nil {
		return stage{}, err
	}
	s.wrap = func(h http.Handler) (http.Handler, error) { return set.Middleware(h), nil }
	return s, nil
}

// checkMarkers walks the app's routes (a chi router, Huma on chi
// included, or an authn.ServeMux) for markers of a component the app did
// not register.
func checkMarkers(in componentsIn, all []component) error {
	var problems []string
	route := func(method, pattern string, h http.Handler, mws []func(http.Handler) http.Handler) {
		for _, c := range all {
			if c.val != nil {
				continue
			}
			for _, said := range strings.Fields(c.describe(h, mws)) {
				if !strings.Contains(said, "=") {
					continue // "burst 20" goes on from "ratelimit=10/s"
				}
				marker, ok := c.markers[said]
				if !ok {
					marker = c.marker
				}
				problem := fmt.Sprintf("fxsvc.Serve: %s on %s %s needs %s", marker, method, pattern, c.option)
				if !slices.Contains(problems, problem) {
					problems = append(problems, problem)
				}
			}
		}
	}
	if err := walkChi(in.Router, in.ChiRouter, route); err != nil {
		return fmt.Errorf("fxsvc.Serve: walking the chi router: %w", err)
	}
	if in.ServeMux != nil {
		for _, rt := range in.ServeMux.Routes() {
			method := rt.Method
			if method == "" {
				method = "*"
			}
			route(method, rt.Path, rt.Handler, nil)
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return errors.New(strings.Join(problems, "\n"))
}
