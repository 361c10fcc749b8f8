package behind

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/svckit/svc/internal/reqfacts"
)

// Components is the set of components an app registered, built once at
// start and put on each request by one middleware (fxsvc's components
// stage), for the routes' markers to find: one per-request record, not a
// wrapper per component.
type Components struct {
	entries []carriedComponent
}

type carriedComponent struct {
	slot any // the component type's *Slot
	val  any
}

// slots are the component types of the process: each package's NewSlot
// registers its one.
var (
	slotsMu sync.Mutex
	slots   []interface{ accepts(any) bool }
)

// NewComponents collects components (*ratelimit.Limiter,
// *idempotency.Component, …). It refuses a value of a type no component
// package registered, and one type twice.
func NewComponents(cs ...any) (*Components, error) {
	slotsMu.Lock()
	defer slotsMu.Unlock()
	set := &Components{}
	for _, c := range cs {
		var slot any
		for _, s := range slots {
			if s.accepts(c) {
				slot = s
			}
		}
		if slot == nil {
			return nil, fmt.Errorf("behind: %T is no component", c)
		}
		if _, dup := set.lookup(slot); dup {
			return nil, fmt.Errorf("behind: two components of type %T", c)
		}
		set.entries = append(set.entries, carriedComponent{slot: slot, val: c})
	}
	return set, nil
}

func (set *Components) lookup(slot any) (any, bool) {
	if set == nil {
		return nil, false
	}
	for _, e := range set.entries {
		if e.slot == slot {
			return e.val, true
		}
	}
	return nil, false
}

// componentsKey carries a set on a request without a reqfacts.State.
type componentsKey struct{}

// Middleware puts the set on every request it passes on, with the path
// the app's root saw. Behind svc's telemetry wrapper (every fxsvc app) it
// is one field of the request's reqfacts.State and costs no allocation.
func (set *Components) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if st := reqfacts.From(r.Context()); st != nil {
			if _, ok := st.Root(); !ok {
				st.SetRoot(r.URL.EscapedPath())
			}
			st.SetComponents(set)
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, With(r, componentsKey{}, set))
	})
}

// componentsOf is the set on r, nil when none.
func componentsOf(r *http.Request) *Components {
	ctx := r.Context()
	if st := reqfacts.From(ctx); st != nil {
		if set, ok := st.Components().(*Components); ok {
			return set
		}
	}
	set, _ := ctx.Value(componentsKey{}).(*Components)
	return set
}
