package authnhuma_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
)

// counting is a route marker that counts the requests it serves and, like
// the markers of the components behind the gate, lets `check` read
// through it.
type counting struct {
	next   http.Handler
	served *atomic.Int64
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.served.Add(1)
	c.next.ServeHTTP(w, r)
}

func (c *counting) WrappedHandler() http.Handler { return c.next }

func countingMarker(served *atomic.Int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler { return &counting{next: next, served: served} }
}

// notesOn counts the counting markers `check` finds on a route, reading it
// the way the components' Describe functions do.
func notesOn(h http.Handler, mws []func(http.Handler) http.Handler) int {
	n := 0
	walk := func(x http.Handler) {
		for depth := 0; x != nil && depth < 32; depth++ {
			if _, ok := x.(*counting); ok {
				n++
			}
			w, ok := x.(interface{ WrappedHandler() http.Handler })
			if !ok {
				return
			}
			x = w.WrappedHandler()
		}
	}
	for _, mw := range mws {
		walk(mw(http.NotFoundHandler()))
	}
	walk(h)
	return n
}

type noContent struct{ Status int }

func registerNoted(api huma.API, served *atomic.Int64) {
	h := func(context.Context, *struct{}) (*noContent, error) {
		return &noContent{Status: http.StatusNoContent}, nil
	}
	huma.Get(api, "/noted", h, authnhuma.Notes(countingMarker(served)))
	huma.Get(api, "/anonymous-noted", h, authnhuma.Anonymous, authnhuma.Notes(countingMarker(served)),
		authnhuma.Notes(countingMarker(served), nil))
	huma.Get(api, "/bare", h)
	grp := huma.NewGroup(api, "/group")
	grp.UseSimpleModifier(authnhuma.Notes(countingMarker(served)))
	huma.Get(grp, "/one", h)
	// Without a prefix Huma runs the group's modifiers twice on the
	// operation itself, not on copies.
	plain := huma.NewGroup(api)
	plain.UseSimpleModifier(authnhuma.Notes(countingMarker(served)))
	huma.Get(plain, "/plain-group", h)
}

// The markers given to Notes are read, never run: the operations serve as
// without them, `check` finds each once where it was declared (once on an
// operation of a group, whose modifiers Huma runs twice, with a prefix or
// without), and an operation
// with notes but no guard is registered without a middleware chain, so
// that a request does the same work as on an operation without notes.
func TestNotesAreReadAndNeverRun(t *testing.T) {
	want := map[string]int{"/noted": 1, "/anonymous-noted": 2, "/bare": 0, "/group/one": 1, "/plain-group": 1}
	for _, tc := range []struct {
		name  string
		build func(served *atomic.Int64) (http.Handler, func(t *testing.T) map[string]int)
	}{
		{"NewChi", func(served *atomic.Int64) (http.Handler, func(t *testing.T) map[string]int) {
			r := chi.NewRouter()
			registerNoted(authnhuma.NewChi(r, huma.DefaultConfig("Shop", "1.0.0")), served)
			return r, func(t *testing.T) map[string]int {
				got := map[string]int{}
				_ = chi.Walk(r, func(_, route string, h http.Handler, mws ...func(http.Handler) http.Handler) error {
					got[route] = notesOn(h, mws)
					if (route == "/noted" || route == "/group/one") && len(mws) != 0 {
						t.Errorf("%s: registered behind %d middlewares, want none", route, len(mws))
					}
					return nil
				})
				return got
			}
		}},
		{"NewGo", func(served *atomic.Int64) (http.Handler, func(t *testing.T) map[string]int) {
			mux := authn.NewServeMux()
			registerNoted(authnhuma.NewGo(mux, huma.DefaultConfig("Shop", "1.0.0")), served)
			return mux, func(*testing.T) map[string]int {
				got := map[string]int{}
				for _, rt := range mux.Routes() {
					got[rt.Path] = notesOn(rt.Handler, nil)
				}
				return got
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var served atomic.Int64
			h, read := tc.build(&served)
			got := read(t)
			for route, n := range want {
				if got[route] != n {
					t.Errorf("%s: check finds %d noted markers, want %d", route, got[route], n)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest("GET", route, nil))
				if w.Code != http.StatusNoContent {
					t.Errorf("GET %s: %d %s", route, w.Code, w.Body)
				}
			}
			if got["/openapi.json"] != 0 {
				t.Errorf("the document's route has %d notes", got["/openapi.json"])
			}
			if n := served.Load(); n != 0 {
				t.Fatalf("noted markers served %d requests", n)
			}
		})
	}
}
