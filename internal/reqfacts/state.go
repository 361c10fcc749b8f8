// A State is the small per-request record the outermost telemetry
// wrapper puts in the request context and the authentication gate fills:
// the route template when the gate found it, a way to find it after the
// handler ran when the gate did not need it, the caller's address (worked
// out once, on first use, by the app's [Proxies]), and the subject under
// authn.EndUser(true).
//
// It exists so that the access log, the HTTP metrics and the server span
// name the route without a second router lookup on the gate's hot path:
// the gate looks a route up only when it needs it, and the telemetry
// wrapper asks for it only when telemetry is on. A request without the
// wrapper carries no State, and the gate pays one ctx.Value lookup.
//
// It also carries, for the components behind the gate (internal/behind),
// the path the app's root saw and the components their middlewares chose
// for the request, so that putting one on a request costs no context and
// no request copy.
//
// A State belongs to one request and is used by the goroutine serving it:
// the gate writes it before dispatching, the wrapper reads it after the
// handler returned.
package reqfacts

import (
	"context"
	"net/http"
	"sync/atomic"
)

// Finder finds the route template a request is dispatched to, "" and false
// when no route answers it.
type Finder interface {
	FindRoute(r *http.Request) (pattern string, found bool)
}

// State is what the gate tells the telemetry wrapper about one request.
//
// Its fields are laid out for size: the wrapper allocates one on every
// request (in its context node, 256 bytes with the ID; every byte a
// request allocates is paid again in the collector's work).
type State struct {
	route      string
	finder     Finder
	proxies    *Proxies // a pointer: the State is allocated once per request
	addr       string
	subject    string
	root       string
	components any
	found      bool
	looked     bool
	hasAddr    bool
	hasRoot    bool
	// storeWait is how long the request waited on the shared store, in
	// microseconds (see [State.StoreWait]): 32 bits, beside the flags,
	// so that the State stays in its size class.
	storeWait atomic.Uint32

	// The first values carried sit in place (the gate's three: an fxsvc
	// app puts its components in one set, not here); more, which only a
	// hand-built stack with component middlewares behind the gate
	// carries, go in places allocated by the first Carry that needs them.
	carried [inPlace]carried
	more    *[maxCarried - inPlace]carried

	// router is the router's own context value while it dispatches (see
	// [State.SetRouterValue]): atomic, because the State answers the
	// request context's lookups, which goroutines the request started
	// (an outbound call's transport) still make while it is cleared.
	router atomic.Pointer[RouterValue]
}

// A RouterValue is a router's own context value (chi's route context),
// answered under Key while the router dispatches.
type RouterValue struct{ Key, Val any }

// maxCarried is how many values a State carries: the four components
// behind the gate, and the gate's own three (itself for its route
// markers, the caller, and the verification budget's key). More ride on
// the context instead. inPlace of them need no allocation.
const (
	maxCarried = 7
	inPlace    = 3
)

type carried struct{ key, val any }

type key struct{}

// Key is the context key a State is stored under: a context type that
// carries a State among other values (the telemetry wrapper's, one per
// request) answers it with the *State.
func Key() any { return key{} }

// With returns ctx carrying s, answering as well the keys s carries
// ([State.Carry]), as the telemetry wrapper's context does.
func With(ctx context.Context, s *State) context.Context { return &stateContext{ctx, s} }

type stateContext struct {
	context.Context
	s *State
}

func (c *stateContext) Value(k any) any {
	if v, ok := c.s.Value(k); ok {
		return v
	}
	return c.Context.Value(k)
}

// Value is what a context carrying s answers for k: s under [Key], what
// s carries under a carried key ([State.Carry]); false for any other key,
// which the context then asks its parent.
func (s *State) Value(k any) (any, bool) {
	if k == (key{}) {
		return s, true
	}
	if rv := s.router.Load(); rv != nil && k == rv.Key {
		return rv.Val, true
	}
	return s.Carried(k)
}

// SetRouterValue makes the State answer rv.Key with rv.Val, and forget
// it when rv is nil: the router's own context value (chi's route context)
// while the router dispatches, which the router then finds on the request
// instead of making a context node and a request copy to carry it. Unlike
// [State.Carry], the value is the router's for one dispatch, cleared once
// the router returned; rv must not change while it is set.
func (s *State) SetRouterValue(rv *RouterValue) { s.router.Store(rv) }

// From returns the request's State, nil when no telemetry wrapper put one.
func From(ctx context.Context) *State {
	s, _ := ctx.Value(key{}).(*State)
	return s
}

// SetRoute records the route the gate found ("" and false: no route).
func (s *State) SetRoute(pattern string, found bool) {
	s.route, s.found, s.looked = pattern, found, true
}

// SetFinder records how to find the route later, when the gate did not.
func (s *State) SetFinder(f Finder) { s.finder = f }

// SetProxies records the app's trusted proxies, by which
// [State.ClientAddress] names the caller. p is shared, never written.
func (s *State) SetProxies(p *Proxies) { s.proxies = p }

// SetSubject records the authenticated (or signature-verified) subject.
func (s *State) SetSubject(sub string) { s.subject = sub }

// Route returns the route of r (see [Route]): the one the gate recorded,
// else the one its finder finds now, else the one a router that already
// dispatched r put on it; found once and remembered, so that every reader
// of one request names the same route. "" and false when none answers.
func (s *State) Route(r *http.Request) (string, bool) {
	if !s.looked {
		if s.finder != nil {
			s.SetRoute(s.finder.FindRoute(r))
		} else if route, found := requestRoute(r); found {
			// Not remembered when not found: the wrapper asks with the
			// request its router has not dispatched yet.
			s.SetRoute(route, true)
		}
	}
	return s.route, s.found
}

// ClientAddress returns the caller's address by the State's proxies,
// worked out on the first call and remembered: every part that names the
// caller of one request names the same one.
func (s *State) ClientAddress(r *http.Request) string {
	if !s.hasAddr {
		var p Proxies
		if s.proxies != nil {
			p = *s.proxies
		}
		s.addr, s.hasAddr = p.ClientAddress(r), true
	}
	return s.addr
}

// Subject returns the subject the gate recorded, "" and false when none.
func (s *State) Subject() (string, bool) { return s.subject, s.subject != "" }

// Inherit takes the root path, the carried components and the trusted
// proxies of outer, the State of an enclosing telemetry wrapper, so that a
// wrapper nested in another hides none of them. Proxies of its own win.
func (s *State) Inherit(outer *State) {
	s.root, s.hasRoot, s.carried, s.components = outer.root, outer.hasRoot, outer.carried, outer.components
	if outer.more != nil {
		// A copy: what this State carries must not change what the
		// outer one answers once this wrapper's handler returned.
		more := *outer.more
		s.more = &more
	}
	if s.proxies == nil || len(*s.proxies) == 0 {
		s.proxies = outer.proxies
	}
}

// SetRoot records the request path as the app's root saw it (the first
// component behind the gate records it).
func (s *State) SetRoot(path string) { s.root, s.hasRoot = path, true }

// Root is the path [State.SetRoot] recorded.
func (s *State) Root() (string, bool) { return s.root, s.hasRoot }

// SetComponents records the app's set of components behind the gate, put
// on the request once for every route marker to find (internal/behind).
func (s *State) SetComponents(set any) { s.components = set }

// Components is what [State.SetComponents] recorded, nil when nothing.
func (s *State) Components() any { return s.components }

// Carry puts val under key, replacing what key held (the nearest
// middleware wins), and reports false when the State is full. The
// telemetry wrapper's context answers ctx.Value(key) with val, so that a
// middleware puts a value on the request without a context node and a
// request copy; key is comparable, as a context key is.
func (s *State) Carry(key, val any) bool {
	// Places fill in order and are never freed: the first free one ends
	// the keys carried.
	for i := range s.carried {
		if c := &s.carried[i]; c.key == nil || c.key == key {
			c.key, c.val = key, val
			return true
		}
	}
	if s.more == nil {
		s.more = new([maxCarried - inPlace]carried)
	}
	for i := range s.more {
		if c := &s.more[i]; c.key == nil || c.key == key {
			c.key, c.val = key, val
			return true
		}
	}
	return false
}

// Carried returns what [State.Carry] put under key.
func (s *State) Carried(key any) (any, bool) {
	if v, ok, end := find(s.carried[:], key); ok || end || s.more == nil {
		return v, ok
	}
	v, ok, _ := find(s.more[:], key)
	return v, ok
}

// find looks key up in places; end reports a free place, after which
// nothing is carried.
func find(places []carried, key any) (val any, ok, end bool) {
	for i := range places {
		switch places[i].key {
		case key:
			return places[i].val, true, false
		case nil:
			return nil, false, true
		}
	}
	return nil, false, false
}

// ClientAddress names the caller of r: by the request's State (the app's
// trusted proxies honoured, worked out once per request), else, with no
// telemetry wrapper outside, the peer, no forwarding header believed.
// The gate, its bans, flood limits and security records, the rate
// limiter, the access log and the spans all name the caller by it.
func ClientAddress(r *http.Request) string {
	if s := From(r.Context()); s != nil {
		return s.ClientAddress(r)
	}
	return Proxies(nil).ClientAddress(r)
}
