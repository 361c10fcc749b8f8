package behind

import (
	"net/http"
	"sync"

	"github.com/svckit/svc/internal/reqfacts"
)

// Slot is where a component of type T (a pointer) rides on the requests
// of the routes behind its middleware, for the routes' markers to find.
// A marker on a route with no middleware in front gets the component's
// defaults, built once per process.
type Slot[T comparable] struct {
	build func() (T, error)
	once  sync.Once
	def   T
}

// NewSlot returns the slot of one component type, which [NewComponents]
// then knows; build makes the default component, and its error is
// dropped: build must not fail on the defaults. Each component package
// makes one, at init.
func NewSlot[T comparable](build func() (T, error)) *Slot[T] {
	s := &Slot[T]{build: build}
	slotsMu.Lock()
	slots = append(slots, s)
	slotsMu.Unlock()
	return s
}

func (s *Slot[T]) accepts(v any) bool {
	_, ok := v.(T)
	return ok
}

// Middleware puts c on every request it passes on, with the path the
// app's root saw (see [With]). Behind svc's telemetry wrapper (every
// fxsvc app) c rides in the request's reqfacts.State, which costs no
// allocation as long as the State has a place free in its context node
// (behind the gate, whose three take those, the State allocates the
// places for the others once per request; fxsvc puts its components in
// one set instead); elsewhere on a context and a request copy. The slot
// itself is the key: it is a pointer, so the lookup boxes nothing.
func (s *Slot[T]) Middleware(c T, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if st := reqfacts.From(r.Context()); st != nil {
			// The first component records the root path, as With does.
			if _, ok := st.Root(); !ok {
				st.SetRoot(r.URL.EscapedPath())
			}
			if st.Carry(s, c) {
				next.ServeHTTP(w, r)
				return
			}
		}
		next.ServeHTTP(w, With(r, s, c))
	})
}

// For returns the component the nearest middleware put on r, else the
// one of the app's [Components], else the default one (a hand-built
// stack with no middleware; fxsvc refuses such a route at start).
func (s *Slot[T]) For(r *http.Request) T {
	ctx := r.Context()
	if st := reqfacts.From(ctx); st != nil {
		if c, ok := st.Carried(s); ok {
			return c.(T)
		}
	}
	if c, ok := ctx.Value(s).(T); ok {
		return c
	}
	if c, ok := componentsOf(r).lookup(s); ok {
		return c.(T)
	}
	s.once.Do(func() { s.def, _ = s.build() })
	return s.def
}
