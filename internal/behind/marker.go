package behind

import (
	"net/http"
	"strings"
)

// Marker is what every component's route marker holds: the handler it
// wraps, the name the gate gives it when it sits outside authn.Require,
// and what `check` says of it. A component's marker type embeds it; the
// type stays the component's own, so Markers finds only that component's.
type Marker struct {
	Next http.Handler
	// Name is the marker as the app writes it ("idempotency.Required").
	Name string
	// Says is what `check` lists for the route ("idempotency=required").
	Says string
}

// WrappedHandler lets `check` read the markers inside this one.
func (m *Marker) WrappedHandler() http.Handler { return m.Next }

// BehindGate names the marker for the gate, which refuses a route where it
// sits outside authn.Require: a caller lacking a scope would otherwise
// reach the component's answer (a replay, a cached response, a 412).
func (m *Marker) BehindGate() string { return m.Name }

// Said is what `check` lists for the route.
func (m *Marker) Said() string { return m.Says }

// Describe tells `check` what a route's markers of type M say, in order,
// space-separated; "" when it has none.
func Describe[M interface{ Said() string }](h http.Handler, mws []func(http.Handler) http.Handler) string {
	var out []string
	for _, m := range Markers[M](h, mws) {
		out = append(out, m.Said())
	}
	return strings.Join(out, " ")
}
