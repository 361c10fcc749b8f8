// Package reqstate is the small per-request record the outermost telemetry
// wrapper puts in the request context and the authentication gate fills:
// the route template when the gate found it, a way to find it after the
// handler ran when the gate did not need it, the caller's address as the
// gate sees it, and the subject under authn.EndUser(true).
//
// It exists so that the access log, the HTTP metrics and the server span
// name the route without a second router lookup on the gate's hot path:
// the gate looks a route up only when it needs it, and the telemetry
// wrapper asks for it only when telemetry is on. A request without the
// wrapper carries no State, and the gate pays one ctx.Value lookup.
//
// A State belongs to one request and is used by the goroutine serving it:
// the gate writes it before dispatching, the wrapper reads it after the
// handler returned.
package reqstate

import (
	"context"
	"net/http"
)

// Finder finds the route template a request is dispatched to, "" and false
// when no route answers it.
type Finder interface {
	FindRoute(r *http.Request) (pattern string, found bool)
}

// Addresser names the caller of a request, trusted proxies honoured.
type Addresser interface {
	ClientAddress(r *http.Request) string
}

// State is what the gate tells the telemetry wrapper about one request.
type State struct {
	route   string
	found   bool
	looked  bool
	finder  Finder
	addr    Addresser
	subject string
	hasSubj bool
}

type key struct{}

// With returns ctx carrying s.
func With(ctx context.Context, s *State) context.Context { return context.WithValue(ctx, key{}, s) }

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

// SetAddresser records how the gate names the caller.
func (s *State) SetAddresser(a Addresser) { s.addr = a }

// SetSubject records the authenticated (or signature-verified) subject.
func (s *State) SetSubject(sub string) { s.subject, s.hasSubj = sub, sub != "" }

// Route returns the route template of r: the one the gate recorded, else
// the one its finder finds now (once), else "" and false.
func (s *State) Route(r *http.Request) (string, bool) {
	if !s.looked && s.finder != nil {
		s.route, s.found = s.finder.FindRoute(r)
		s.looked = true
	}
	return s.route, s.found
}

// ClientAddress returns the caller's address as the gate sees it, "" and
// false when no gate named it.
func (s *State) ClientAddress(r *http.Request) (string, bool) {
	if s.addr == nil {
		return "", false
	}
	return s.addr.ClientAddress(r), true
}

// Subject returns the subject the gate recorded, "" and false when none.
func (s *State) Subject() (string, bool) { return s.subject, s.hasSubj }
