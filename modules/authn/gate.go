package authn

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"go.uber.org/zap"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// Gate authenticates every request and websocket handshake that reaches
// it, unless its path is excluded or the route it is dispatched to is
// anonymous. Build one with [New]; put it in front of a router with
// [Gate.Handler] (which reads the router's routes) or use [Middleware] for
// hand-built stacks.
//
// A request without a credential is refused before routing. A request with
// one is verified before routing and then routed; the route's own markers
// ([Require], [Anonymous]) check scopes. Refusals are rendered by the
// registered error format (svcerrors) with the RFC 6750 challenge.
type Gate struct {
	verifier Verifier
	cfg      gateConfig
	exclude  excludeSet
	meta     *metadata
	log      *zap.Logger
}

type gateKey struct{}

// New builds a gate around a verifier. It refuses a nil verifier, Exclude
// patterns that match everything or end inside a segment, and a Resource
// that is not an https URL (or that has no authorization servers to name).
func New(v Verifier, opts ...Option) (*Gate, error) {
	if v == nil {
		return nil, errors.New("authn: no verifier: pass authn.Discover(issuer, audience) or another authn.Verifier")
	}
	g := &Gate{verifier: v, cfg: gateConfig{openAPI: true}, log: zap.L()}
	for _, o := range opts {
		if o != nil {
			o(&g.cfg)
		}
	}
	var err error
	if g.exclude, err = newExcludeSet(g.cfg.exclude); err != nil {
		return nil, err
	}
	if g.cfg.resource != "" {
		if g.meta, err = newMetadata(g.cfg, v); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// SetLogger sets where the gate logs failures of its own (a verifier or
// check hook error that answers 500). Default zap.L().
func (g *Gate) SetLogger(l *zap.Logger) {
	if l != nil {
		g.log = l
	}
}

// Verifier returns the verifier the gate was built with.
func (g *Gate) Verifier() Verifier { return g.verifier }

// MetadataPath is where the protected-resource metadata is served, "" when
// no Resource is set.
func (g *Gate) MetadataPath() string {
	if g.meta == nil {
		return ""
	}
	return g.meta.path
}

// Excluded reports whether path is never authenticated.
func (g *Gate) Excluded(path string) bool { return g.exclude.match(path) }

// routeFinder tells the gate, before routing, which route a request will be
// dispatched to and how that route is guarded. found is false when no route
// answers the method and path.
type routeFinder interface {
	find(r *http.Request) (pattern string, gd guard, found bool)
}

// Middleware returns the gate as a plain middleware for hand-built stacks.
// Knowing no routes, it serves public paths through Exclude alone: every
// other request needs a token. Invalid options make every request answer
// 500 (the gate fails closed) and are logged; use [New] to get the error.
func Middleware(v Verifier, opts ...Option) func(http.Handler) http.Handler {
	g, err := New(v, opts...)
	if err != nil {
		zap.L().Error("authn.Middleware: invalid settings, refusing every request", zap.Error(err))
		return func(http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
			})
		}
	}
	return func(next http.Handler) http.Handler { return g.wrap(next, nil) }
}

func (g *Gate) wrap(next http.Handler, routes routeFinder) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.serve(w, r, next, routes)
	})
}

func (g *Gate) serve(w http.ResponseWriter, r *http.Request, next http.Handler, routes routeFinder) {
	if g.meta != nil && r.URL.Path == g.meta.path {
		g.meta.ServeHTTP(w, r)
		return
	}
	if g.exclude.match(r.URL.Path) {
		next.ServeHTTP(w, r)
		return
	}
	token, refusal := readCredential(r)
	if refusal != nil {
		g.refuse(w, r, refusal)
		return
	}
	ctx := context.WithValue(r.Context(), gateKey{}, g)
	if token == "" {
		if routes != nil && g.routedWithoutToken(r, routes) {
			next.ServeHTTP(w, r.WithContext(ctx))
			return
		}
		g.refuse(w, r, &Refusal{Kind: KindAuthenticationRequired})
		return
	}
	p, err := g.verifier.Verify(r.Context(), token)
	if err != nil {
		g.verifyFailed(w, r, err)
		return
	}
	if !p.Authenticated {
		g.internalError(w, r, fmt.Errorf("authn: verifier %T returned a principal that is not Authenticated with a nil error", g.verifier))
		return
	}
	if g.cfg.check != nil {
		var ok bool
		if p, ok = g.runCheck(w, r, p); !ok {
			return
		}
	}
	next.ServeHTTP(w, r.WithContext(WithPrincipal(ctx, p, token)))
}

// routedWithoutToken reports whether a request without a token may be
// routed: its route is anonymous, or it is a CORS preflight that no
// protected OPTIONS route would serve (so that the app's own CORS middleware
// can answer it).
func (g *Gate) routedWithoutToken(r *http.Request, routes routeFinder) bool {
	_, gd, found := routes.find(r)
	if found {
		return gd.anonymous
	}
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" &&
		r.Header.Get("Access-Control-Request-Method") != ""
}

func (g *Gate) verifyFailed(w http.ResponseWriter, r *http.Request, err error) {
	var te *TokenError
	switch {
	case errors.As(err, &te):
		g.refuse(w, r, &Refusal{Kind: KindTokenRejected, Reason: te.Reason})
	case errors.Is(err, ErrKeysUnavailable):
		g.refuse(w, r, &Refusal{Kind: KindKeysUnavailable})
	default:
		g.internalError(w, r, err)
	}
}

// refuse answers r with a refusal in the registered error format.
func (g *Gate) refuse(w http.ResponseWriter, r *http.Request, ref *Refusal) {
	if g.meta != nil {
		ref.resourceMetadata = g.meta.url
	}
	responsesFor(r).ServeError(w, r, ref)
}

// internalError answers 500: the verifier or the hook failed, not the caller.
func (g *Gate) internalError(w http.ResponseWriter, r *http.Request, err error) {
	g.log.Error("authn: request could not be authenticated", zap.String("url.path", r.URL.Path), zap.Error(err))
	res := responsesFor(r)
	res.RenderDescription(svcerrors.Description{Kind: svcerrors.Kind{
		Status: http.StatusInternalServerError, Title: http.StatusText(http.StatusInternalServerError),
		Detail: "The server could not complete the request.",
	}}, r.URL.Path).Write(w)
}

func responsesFor(r *http.Request) *svcerrors.Responses {
	if res, ok := svcerrors.FromContext(r.Context()); ok {
		return res
	}
	return svcerrors.Default()
}

func gateFrom(ctx context.Context) *Gate {
	g, _ := ctx.Value(gateKey{}).(*Gate)
	return g
}
