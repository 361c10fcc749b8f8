package fxsvc

import (
	"errors"
	"net/http"

	"github.com/rs/cors"
	"go.uber.org/fx"

	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// The handler chain of [Serve], outermost first: a request meets the
// stages in this order, and the app's router last. [buildChain] wraps them
// in this order.
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

// chainIn is what the chain is built from: svc's own stages, each there
// when the app registers its option, and the app's own wrappers.
type chainIn struct {
	fx.In
	Registered registered
	Telemetry  telemetryIn
	Components componentsIn
}

// registered is what an app registers on the request's path, with or
// without a server; the start line lists it either way.
//
// CORS and Health arrive as groups of at most one, not as a value each:
// a second registration of either is refused by its singleton claim
// (lifecycle.Singleton), which names the option, and a second provider
// of one type would fail the build first, in dig's words.
type registered struct {
	fx.In
	Errors *svcerrors.Responses `optional:"true"`
	CORS   []corsOn             `group:"svc.http.cors"`
	Health []*health            `group:"svc.http.health"`
	Gate   *authn.Gate          `optional:"true"`
	Wraps  []wrapper            `group:"svc.http.wrappers"`
}

// buildChain wraps the router in the chain, read from the top: the
// request meets each stage in the order written here, and the router
// last. A stage the app did not register is left out; the app's own
// wrappers go before or after the stage they name ([Wrap]). It returns the
// chain's names, outermost first, and the components it holds, for the
// start line.
func buildChain(in chainIn, router http.Handler) (http.Handler, []string, []string, error) {
	c := newChain(in.Registered.Wraps)
	c.add(newTelemetry(in.Telemetry))
	c.add(errorsStage(in.Registered.Errors))
	c.add(corsStage(in.Registered.CORS))
	c.add(healthStage(in.Registered.Health))
	c.add(newComponents(in.Components))
	c.add(gateStage(in.Registered.Gate))
	return c.around(router)
}

// stage is one of svc's own stages.
type stage struct {
	name string
	// components are what the start line lists: the gate's stage lists
	// "authn", the components' the ones the app registered.
	components []string
	// wrap puts the stage around h; nil leaves the stage out (the app did
	// not register it).
	wrap func(h http.Handler) (http.Handler, error)
}

// errorsStage puts the app's error format on every answer below it
// (Errors, TMFErrors).
func errorsStage(res *svcerrors.Responses) stage {
	s := stage{name: stageErrors}
	if res != nil {
		s.components = []string{"errors"}
		s.wrap = func(h http.Handler) (http.Handler, error) { return res.Middleware(h), nil }
	}
	return s
}

// corsOn is the options of the app's [CORS].
type corsOn struct{ opts cors.Options }

// corsStage answers cross-origin requests ([CORS]). It refuses
// AllowCredentials with every origin allowed.
func corsStage(on []corsOn) stage {
	s := stage{name: stageCORS}
	if len(on) > 0 {
		opts := on[0].opts
		s.components = []string{"cors"}
		s.wrap = func(h http.Handler) (http.Handler, error) {
			if opts.AllowCredentials && everyOrigin(opts) {
				return nil, errors.New(`fxsvc.CORS: AllowCredentials with every origin allowed ("*" or no AllowedOrigins): ` +
					`browsers refuse a credentialed answer to "*"; list the origins in AllowedOrigins`)
			}
			return cors.New(opts).Handler(h), nil
		}
	}
	return s
}

// healthStage answers /livez and /readyz ([Health]).
func healthStage(h []*health) stage {
	s := stage{name: stageHealth}
	if len(h) > 0 {
		s.components = []string{"health"}
		s.wrap = h[0].wrap
	}
	return s
}

// gateStage authenticates every request the router's routes protect
// ([Authn]).
func gateStage(g *authn.Gate) stage {
	s := stage{name: stageGate}
	if g != nil {
		s.components = []string{"authn"}
		s.wrap = g.Handler
	}
	return s
}

// components names what an app registered on the request's path, whether
// or not it serves.
func (r registered) components() []string {
	var names []string
	for _, s := range []stage{errorsStage(r.Errors), corsStage(r.CORS), healthStage(r.Health), gateStage(r.Gate)} {
		names = append(names, s.components...)
	}
	for _, w := range r.Wraps {
		names = append(names, w.name)
	}
	return names
}
