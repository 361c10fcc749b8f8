package fxsvc

import (
	"fmt"
	"net/http"

	"github.com/caarlos0/env/v11"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/svckit/svc/lifecycle"
	"github.com/svckit/svc/modules/authn"
)

// Authn authenticates every request and websocket handshake the app's
// router serves ([Serve]), unless its path is excluded or its route is
// anonymous. The verifier opens with the app (a JWT verifier loads its keys
// in the background) and closes with it. At build time the gate reads the
// router's routes and refuses bad set-ups with an error naming the route.
// It provides the *authn.Gate, and tells `check` how each route is guarded.
//
// A nil verifier is built from the deployment's trust settings,
// SVC_AUTHN_ISSUER and SVC_AUTHN_AUDIENCE (see [AuthnFromEnv]); nothing
// else inbound is read from the environment.
func Authn(v authn.Verifier, opts ...authn.Option) fx.Option {
	return fx.Module("svc.authn",
		fx.Supply(fx.Private, authnSpec{verifier: v, opts: opts}),
		fx.Provide(onlyOneAuthnGatePerApp),
		fx.Provide(fx.Annotate(func(g *authn.Gate) RouteGuard { return g })),
		fx.Provide(fx.Annotate(func(g *authn.Gate) RouteLister { return gateRoutes{g} }, fx.ResultTags(`group:"svc.routes"`))),
		fx.Provide(fx.Annotate(
			func(g *authn.Gate) Wrapper {
				return Wrapper{Name: "authn", Order: 100, Wrap: g.Handler}
			},
			fx.ResultTags(`group:"`+wrapperGroup+`"`),
		)),
		fx.Invoke(func(lc fx.Lifecycle, g *authn.Gate) {
			if c, ok := g.Verifier().(lifecycle.Component); ok {
				lifecycle.Register(lc, c)
			}
		}),
	)
}

type authnSpec struct {
	verifier authn.Verifier
	opts     []authn.Option
}

type authnIn struct {
	fx.In
	Spec   authnSpec
	Logger *zap.Logger `optional:"true"`
}

// AuthnEnv is the inbound trust the deployment may set.
type AuthnEnv struct {
	Issuer   string `env:"SVC_AUTHN_ISSUER"`
	Audience string `env:"SVC_AUTHN_AUDIENCE"`
}

// AuthnFromEnv reads SVC_AUTHN_ISSUER and SVC_AUTHN_AUDIENCE. ok is false
// when the issuer is unset.
func AuthnFromEnv() (AuthnEnv, bool, error) {
	var e AuthnEnv
	if err := env.Parse(&e); err != nil {
		return e, false, fmt.Errorf("reading SVC_AUTHN_ISSUER/SVC_AUTHN_AUDIENCE: %w", err)
	}
	return e, e.Issuer != "", nil
}

// onlyOneAuthnGatePerApp builds the gate. Its name is what fx reports when
// an app registers two.
func onlyOneAuthnGatePerApp(in authnIn) (*authn.Gate, error) {
	v := in.Spec.verifier
	if v == nil {
		e, ok, err := AuthnFromEnv()
		if err != nil {
			return nil, fmt.Errorf("fxsvc.Authn: %w", err)
		}
		if !ok {
			return nil, fmt.Errorf("fxsvc.Authn: no verifier given and SVC_AUTHN_ISSUER is unset: pass authn.Discover(issuer, audience) or set SVC_AUTHN_ISSUER and SVC_AUTHN_AUDIENCE")
		}
		v = authn.Discover(e.Issuer, e.Audience)
	}
	g, err := authn.New(v, in.Spec.opts...)
	if err != nil {
		return nil, fmt.Errorf("fxsvc.Authn: %w", err)
	}
	if in.Logger != nil {
		g.SetLogger(in.Logger)
	}
	return g, nil
}

var _ RouteGuard = (*authn.Gate)(nil)
var _ func(http.Handler) (http.Handler, error) = (*authn.Gate)(nil).Handler

// gateRoutes lists what the gate answers itself: the metadata document,
// never authenticated.
type gateRoutes struct{ g *authn.Gate }

func (r gateRoutes) Routes() []Route {
	if p := r.g.MetadataPath(); p != "" {
		return []Route{{Method: http.MethodGet, Pattern: p, Mode: "excluded"}}
	}
	return nil
}
