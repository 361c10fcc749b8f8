package authn

import (
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/svckit/svc/internal/guardwords"
	"github.com/svckit/svc/internal/reqfacts"
)

// ServeMux is an *http.ServeMux that remembers the patterns registered on
// it, which the standard one cannot list. The gate checks them when it is
// installed ([Gate.Handler] refuses the same set-ups as on chi) and the
// `check` command prints them (fxsvc.ServeMux). Use it as you would an
// *http.ServeMux; a plain *http.ServeMux is gated too, but its routes can
// only be checked as requests reach them.
type ServeMux struct {
	*http.ServeMux

	mu     sync.Mutex
	routes []muxRoute
	added  func(muxRoute) // set by the gate: checks routes registered after install
}

// MuxRoute is one pattern registered on a [ServeMux], as
// [ServeMux.Routes] lists it.
type MuxRoute struct {
	// Method is the pattern's method, "" when it serves every method.
	Method string
	// Host is the pattern's host part, "" for every host.
	Host string
	// Path is the pattern's path part, without host and method.
	Path string
	// Handler is the handler registered for the pattern, with its route
	// markers (Require, Anonymous) around it.
	Handler http.Handler
}

// muxRoute is one pattern registered on a [ServeMux]: its parts, the
// pattern as registered (such as "GET /users/{id}") and where it was
// registered, file:line.
type muxRoute struct {
	MuxRoute
	pattern, at string
}

// NewServeMux returns an empty [ServeMux].
func NewServeMux() *ServeMux { return &ServeMux{ServeMux: http.NewServeMux()} }

// Handle registers h for pattern, as http.ServeMux.Handle does (and panics
// where it does: an invalid or conflicting pattern), and remembers it. A
// pattern registered twice panics naming both registrations (where and
// how each is guarded), where net/http would name this method twice.
func (m *ServeMux) Handle(pattern string, h http.Handler) { m.handle(pattern, h) }

func (m *ServeMux) handle(pattern string, h http.Handler) {
	at := registeredAt()
	method, host, path := splitMuxPattern(pattern)
	rt := muxRoute{MuxRoute: MuxRoute{Method: method, Host: host, Path: path, Handler: h}, pattern: pattern, at: at}
	m.mu.Lock()
	for _, first := range m.routes {
		if first.Method == method && first.Host == host && first.Path == path {
			m.mu.Unlock()
			panic(fmt.Sprintf("authn.ServeMux: %q is registered twice: at %s (%s) and at %s (%s); the mux would serve only one: register each pattern once",
				pattern, first.at, guardWords(first.Handler, nil), at, guardWords(h, nil)))
		}
	}
	m.mu.Unlock()
	m.ServeMux.Handle(pattern, h)
	m.mu.Lock()
	m.routes = append(m.routes, rt)
	added := m.added
	m.mu.Unlock()
	if added != nil {
		added(rt)
	}
}

// HandleFunc registers fn for pattern; see [ServeMux.Handle].
func (m *ServeMux) HandleFunc(pattern string, fn func(http.ResponseWriter, *http.Request)) {
	if fn == nil {
		m.ServeMux.HandleFunc(pattern, nil) // the standard mux's own refusal
		return
	}
	m.handle(pattern, http.HandlerFunc(fn))
}

// registeredAt is the file:line of the app's code that registered a route:
// the first caller outside this package and the routers and frameworks that
// register routes for it (chi, Huma, authnhuma), for a refusal that names a
// registration.
func registeredAt() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if pkg := funcPackage(f.Function); pkg != "github.com/svckit/svc/modules/authn" &&
			pkg != "github.com/svckit/svc/modules/authn/authnhuma" &&
			!strings.HasPrefix(pkg, "github.com/go-chi/chi/") &&
			!strings.HasPrefix(pkg, "github.com/danielgtaylor/huma/") {
			return f.File + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return "an unknown place"
		}
	}
}

// funcPackage is the import path of the package of a function named as
// runtime.Frame names it ("example.com/a/b.(*T).M" is in "example.com/a/b").
func funcPackage(name string) string {
	slash := strings.LastIndexByte(name, '/') + 1
	if dot := strings.IndexByte(name[slash:], '.'); dot >= 0 {
		return name[:slash+dot]
	}
	return name
}

// guardWords says how a route with handler h and middlewares mws is
// guarded, for a refusal.
func guardWords(h http.Handler, mws []func(http.Handler) http.Handler) string {
	return guardWordsOf(guardOf(h, mws))
}

// guardWordsOf says how gd guards a route, for a refusal.
func guardWordsOf(gd guard) string {
	return guardwords.Describe("authn", gd.anonymous, gd.requires, gd.scopes)
}

// Routes returns the patterns registered so far, in registration order.
// fxsvc uses it to check every route and to name the routes the `check`
// command lists; an app rarely needs it.
func (m *ServeMux) Routes() []MuxRoute {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]MuxRoute, len(m.routes))
	for i, rt := range m.routes {
		out[i] = rt.MuxRoute
	}
	return out
}

// splitMuxPattern splits "[METHOD ][HOST]/[PATH]" into its parts.
func splitMuxPattern(pattern string) (method, host, path string) {
	rest := strings.TrimLeft(pattern, " \t")
	if i := strings.IndexAny(rest, " \t"); i >= 0 {
		method, rest = rest[:i], strings.TrimLeft(rest[i:], " \t")
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return method, rest[:i], rest[i:]
	}
	return method, rest, ""
}

// muxTemplate is a ServeMux path written the way the exclusion checks read
// route templates: a subtree ("/files/") as "/files/*", an exact-match
// marker "{$}" dropped.
func muxTemplate(path string) string {
	path = strings.TrimSuffix(path, "{$}")
	if strings.HasSuffix(path, "/") && path != "/" {
		return path + "*"
	}
	return path
}

// handlerFinder is what the gate needs of a ServeMux: the handler and
// pattern a request will be dispatched to, without dispatching it.
type handlerFinder interface {
	Handler(r *http.Request) (h http.Handler, pattern string)
}

// serveMuxRoutes is the gate's view of a ServeMux's routes (Go 1.22+
// patterns). The mux is asked on every request, so a handler registered
// after install is gated as it lands: its markers wrap it.
type serveMuxRoutes struct {
	gate *Gate
	mux  handlerFinder

	anonymous atomic.Bool
	refused   sync.Map // pattern → struct{}: a set-up the gate refuses, logged once
}

func newServeMuxRoutes(g *Gate, mux handlerFinder) (*serveMuxRoutes, error) {
	s := &serveMuxRoutes{gate: g, mux: mux}
	rec, ok := mux.(*ServeMux)
	if !ok {
		return s, nil
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, rt := range rec.routes {
		if err := s.check(rt.pattern, rt.Handler); err != nil {
			return nil, err
		}
	}
	rec.added = s.added
	return s, nil
}

// check refuses what the gate refuses on chi, naming the pattern as
// registered, and notes an anonymous route.
func (s *serveMuxRoutes) check(pattern string, h http.Handler) error {
	method, host, path := splitMuxPattern(pattern)
	gd := guardOf(h, nil)
	if err := s.gate.validateRoute(muxMethod(method), muxTemplate(path), gd); err != nil {
		var ie *installError
		if errors.As(err, &ie) {
			return &installError{Method: ie.Method, Pattern: host + path, Problem: ie.Problem}
		}
		return err
	}
	if gd.anonymous {
		s.anonymous.Store(true)
	}
	return nil
}

// added checks a route registered after install. The registration cannot
// be refused any more: a route the gate would have refused is logged and,
// when a request reaches it, served as protected.
func (s *serveMuxRoutes) added(rt muxRoute) {
	if err := s.check(rt.pattern, rt.Handler); err != nil {
		s.refuse(rt.pattern, err)
	}
}

func muxMethod(m string) string {
	if m == "" {
		return "*"
	}
	return m
}

func (s *serveMuxRoutes) refuse(pattern string, err error) {
	if _, seen := s.refused.LoadOrStore(pattern, struct{}{}); !seen {
		s.gate.refusedAfterInstall(err)
	}
}

func (s *serveMuxRoutes) hasAnonymous() bool { return s.anonymous.Load() }

func (s *serveMuxRoutes) find(r *http.Request) (string, guard, bool) {
	h, pattern := s.mux.Handler(r)
	if pattern == "" {
		// The mux's own 404 or 405 handler: no route answers.
		return "", guard{}, false
	}
	path := reqfacts.PatternRoute(pattern)
	gd := guardOf(h, nil)
	if gd.anonymous || len(gd.scopes) > 0 || !gd.step.none() || gd.issuers != nil {
		// A plain *http.ServeMux could not be checked at install.
		if _, refused := s.refused.Load(pattern); refused {
			return path, guard{}, true
		}
		if err := s.check(pattern, h); err != nil {
			s.refuse(pattern, err)
			return path, guard{}, true
		}
	}
	return path, gd, true
}
