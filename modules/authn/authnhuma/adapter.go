package authnhuma

import (
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// Option configures [NewChi] and [NewGo].
type Option func(*settings)

type settings struct {
	gate       *authn.Gate
	res        *svcerrors.Responses
	prefix     string
	publicDocs bool

	// Huma's documentation routes, as the config has them (docs.go).
	docs        map[string]bool // their paths, as Huma registers them
	schemasPath string          // SchemasPath, where the router serves the schemas
	schemasLink string          // the same from the root of the app

	registered registered // the operations registered, by method and path
}

// Gate names the gate in front of the API, so that the API document
// carries its security scheme and the refusals it answers. Without it the
// document names no scheme (the gate still applies at runtime).
func Gate(g *authn.Gate) Option { return func(s *settings) { s.gate = g } }

// Errors names the app's registered error format, so that the API document
// republishes Huma's error responses with its media type and model
// (ProblemDetail or TMFError), drops Huma's own error model once nothing
// refers to it, and describes the gate's refusals in it. Without it Huma's
// error responses are left as Huma wrote them (an app without a registered
// format keeps Huma's errors) and the refusals are described as RFC 9457
// problem details, as the gate then renders them. At runtime the format
// comes from the request (svcerrors' middleware): pass the same one.
func Errors(res *svcerrors.Responses) Option { return func(s *settings) { s.res = res } }

// Prefix says where the API is served from the root of the app: on
// [NewGo] its patterns start with prefix (as humago.NewWithPrefix); on
// [NewChi] the router is mounted there. The document's servers default to
// it, and the gate's Exclude patterns are matched against prefix+path.
func Prefix(prefix string) Option { return func(s *settings) { s.prefix = prefix } }

// NewChi is humachi.New with the gate's markers on every operation: the
// gate reads each operation's guard before routing (so a request without a
// token reaches only Anonymous operations, before Huma reads its body),
// `check` lists it, and the installer refuses the same set-ups as on chi.
// It also renders Huma's own errors in the registered format and writes the
// security rules into the API document. Mount r wherever a chi router goes;
// a Huma API inside a chi router is gated operation by operation.
func NewChi(r chi.Router, cfg huma.Config, opts ...Option) huma.API {
	s := newSettings(opts)
	api := huma.NewAPI(s.configure(cfg), &chiAdapter{router: r, s: s})
	s.document(api.OpenAPI())
	return api
}

// Mux is what [NewGo] registers on: an *http.ServeMux or an
// *authn.ServeMux (which remembers its patterns for the install checks and
// `check`).
type Mux interface {
	Handle(pattern string, h http.Handler)
	ServeHTTP(w http.ResponseWriter, r *http.Request)
}

// NewGo is humago.New (Go 1.22+ ServeMux patterns) with the gate's
// markers on every operation; see [NewChi]. With [Prefix] the patterns
// start with the prefix, as humago.NewWithPrefix.
func NewGo(mux Mux, cfg huma.Config, opts ...Option) huma.API {
	s := newSettings(opts)
	api := huma.NewAPI(s.configure(cfg), &goAdapter{mux: mux, prefix: s.prefix, s: s})
	s.document(api.OpenAPI())
	return api
}

func newSettings(opts []Option) *settings {
	s := &settings{}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	return s
}

// configure adds what must be in the config before Huma builds the API:
// the error transformer, first in line (before the schema-link transformer
// rewrites Huma's error model into a type of its own), the servers, and,
// last in line, the transformer that mends Huma's `$schema` links. It
// notes where Huma's documentation routes will be.
func (s *settings) configure(cfg huma.Config) huma.Config {
	hooks := append([]func(huma.Config) huma.Config(nil), cfg.CreateHooks...)
	cfg.CreateHooks = append(hooks, func(c huma.Config) huma.Config {
		c.Transformers = append([]huma.Transformer{transformErrorModel}, c.Transformers...)
		if c.OpenAPI == nil {
			c.OpenAPI = &huma.OpenAPI{}
		}
		if s.prefix != "" && len(c.Servers) == 0 {
			c.Servers = []*huma.Server{{URL: s.prefix}}
		}
		c.Transformers = append(c.Transformers, s.mendSchemaLink)
		s.docsRoutes(c)
		return c
	})
	return cfg
}

// chiAdapter registers each operation through humachi on r.With(its
// markers), so that chi.Walk hands the markers to the gate, and its
// handler in one that carries its [Notes] for `check`.
type chiAdapter struct {
	router chi.Router
	s      *settings
}

func (a *chiAdapter) Handle(op *huma.Operation, handler func(huma.Context)) {
	r := a.router
	mws, handler := a.s.handle(op, handler)
	if len(mws) > 0 {
		r = r.With(mws...)
	}
	if len(guardOf(op).notes) > 0 {
		r = notedRouter{Router: r, op: op}
	}
	humachi.NewAdapter(r).Handle(op, handler)
}

func (a *chiAdapter) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.router.ServeHTTP(w, r) }

// goAdapter registers each operation through humago, wrapping the handler
// humago builds in the operation's markers.
type goAdapter struct {
	mux    Mux
	prefix string
	s      *settings
}

func (a *goAdapter) Handle(op *huma.Operation, handler func(huma.Context)) {
	mws, handler := a.s.handle(op, handler)
	humago.NewAdapter(markedMux{Mux: a.mux, mws: mws, op: op}, a.prefix).Handle(op, handler)
}

func (a *goAdapter) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

type markedMux struct {
	Mux
	mws []func(http.Handler) http.Handler
	op  *huma.Operation
}

func (m markedMux) HandleFunc(pattern string, fn func(http.ResponseWriter, *http.Request)) {
	h := noted(m.op, fn)
	for i := len(m.mws) - 1; i >= 0; i-- {
		h = m.mws[i](h)
	}
	m.Handle(pattern, h)
}
