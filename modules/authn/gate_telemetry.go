package authn

import (
	"net/http"

	"go.uber.org/zap"

	"github.com/svckit/svc/internal/reqfacts"
	"github.com/svckit/svc/modules/requestid"
)

// tell hands the telemetry wrapper, when one is outside the gate, what it
// needs to name the request: how to find its route after the handler ran
// (unless the gate finds it on the way).
// Without the wrapper it costs one ctx.Value lookup.
func (g *Gate) tell(r *http.Request, routes routeFinder) *reqfacts.State {
	st := reqfacts.From(r.Context())
	if st != nil {
		if routes != nil {
			st.SetFinder(routes)
		}
	}
	return st
}

// FindRoute reports the route template r is dispatched to.
func (c *chiRoutes) FindRoute(r *http.Request) (string, bool) {
	p, _, found := c.find(r)
	return p, found
}

// FindRoute reports the route template r is dispatched to.
func (s *serveMuxRoutes) FindRoute(r *http.Request) (string, bool) {
	p, _, found := s.find(r)
	return p, found
}

// requestIDField is the request's ID for a log line, nothing when it has
// none (no telemetry wrapper gave one).
func requestIDField(r *http.Request) zap.Field {
	if id := requestid.From(r.Context()); id != "" {
		return zap.String(requestid.LogField, id)
	}
	return zap.Skip()
}
