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

// MarkerOf is the middleware of a component's marker named name: it
// builds one per handler with mk, around the Marker it embeds.
func MarkerOf[M http.Handler](name, says string, mk func(Marker) M) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler { return mk(Marker{Next: next, Name: name, Says: says}) }
}

// WrappedHandler lets `check` read the markers inside this one.
func (m *Marker) WrappedHandler() http.Handler { return m.Next }

// BehindGate names the marker for the gate, which refuses a route where it
// sits outside authn.Require: a caller lacking a scope would otherwise
// reach the component's answer (a replay, a cached response, a 412).
func (m *Marker) BehindGate() string { return m.Name }

// Said is what `check` lists for the route.
func (m *Marker) Said() string { return m.Says }

// base lets Describer find every component's markers by what they embed.
func (m *Marker) base() *Marker { return m }

// Describer tells `check` what a route's markers of one component say, in
// order, space-separated; "" when it has none. The component is named as
// its markers' names start: "ratelimit" for ratelimit.Limit.
func Describer(component string) func(h http.Handler, mws []func(http.Handler) http.Handler) string {
	prefix := component + "."
	return func(h http.Handler, mws []func(http.Handler) http.Handler) string {
		var out []string
		for _, m := range Markers[interface{ base() *Marker }](h, mws) {
			if b := m.base(); strings.HasPrefix(b.Name, prefix) {
				out = append(out, b.Says)
			}
		}
		return strings.Join(out, " ")
	}
}
