package chihead_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/chihead"
	"github.com/svckit/svc/internal/reqfacts"
)

// seen is what a route's handler saw of its request.
type seen struct {
	req     *http.Request
	method  string
	pattern string
	id      string
}

func newRouter(got *seen) *chihead.Router {
	record := func(w http.ResponseWriter, r *http.Request) {
		*got = seen{req: r, method: r.Method, pattern: chi.RouteContext(r.Context()).RoutePattern(), id: chi.URLParam(r, "id")}
		w.WriteHeader(http.StatusNoContent)
	}
	items := chi.NewRouter()
	items.Get("/{id}", record)
	mux := chi.NewRouter()
	mux.Get("/users/{id}", record)
	mux.Mount("/items", items)
	mux.Get("/panic", func(http.ResponseWriter, *http.Request) { panic("handler failed") })
	return chihead.Wrap(mux)
}

// withState is the request as svc's telemetry wrapper passes it on: its
// context answers the request's State.
func withState(r *http.Request) *http.Request {
	return r.WithContext(reqfacts.With(r.Context(), &reqfacts.State{}))
}

// TestRouterDispatchesAlikeWithAndWithoutState holds that the route
// context the Router makes (in the State when there is one, else on a
// context of its own) routes as chi's own would: parameters, mounted
// routers, and HEAD answered by a GET route.
func TestRouterDispatchesAlikeWithAndWithoutState(t *testing.T) {
	cases := []struct {
		method, path            string
		wantMethod, wantPattern string
		wantID                  string
	}{
		{"GET", "/users/7", "GET", "/users/{id}", "7"},
		{"HEAD", "/users/8", "HEAD", "/users/{id}", "8"},
		{"GET", "/items/9", "GET", "/items/{id}", "9"},
		{"HEAD", "/items/10", "HEAD", "/items/{id}", "10"},
	}
	for _, state := range []bool{false, true} {
		for _, c := range cases {
			var got seen
			rt := newRouter(&got)
			r := httptest.NewRequest(c.method, c.path, nil)
			if state {
				r = withState(r)
			}
			w := httptest.NewRecorder()
			rt.ServeHTTP(w, r)
			if w.Code != http.StatusNoContent || got.method != c.wantMethod || got.pattern != c.wantPattern || got.id != c.wantID {
				t.Errorf("state %v, %s %s: status %d, handler saw %s %q id %q; want 204, %s %q id %q",
					state, c.method, c.path, w.Code, got.method, got.pattern, got.id, c.wantMethod, c.wantPattern, c.wantID)
			}
			// Behind the wrapper chi finds the route context in the State
			// and passes the request on as it came: no copy.
			if state && got.req != r {
				t.Errorf("%s %s: the handler got a copy of the request behind the wrapper", c.method, c.path)
			}
			if !state && got.req == r {
				t.Errorf("%s %s: without a State chi must carry its route context on a request of its own", c.method, c.path)
			}
			if v := r.Context().Value(chi.RouteCtxKey); v != nil {
				t.Errorf("state %v, %s %s: the route context is still on the request after the router returned", state, c.method, c.path)
			}
		}
	}
}

func TestRouterForgetsTheRouteContextWhenTheHandlerPanics(t *testing.T) {
	rt := newRouter(&seen{})
	r := withState(httptest.NewRequest("GET", "/panic", nil))
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the handler's panic did not reach the caller")
			}
		}()
		rt.ServeHTTP(httptest.NewRecorder(), r)
	}()
	if v := r.Context().Value(chi.RouteCtxKey); v != nil {
		t.Fatalf("after a panic the State still answers the route context %v", v)
	}
}

// TestParentRouteContextIsKept holds that a Router inside another chi
// router leaves dispatch to the parent's route context.
func TestParentRouteContextIsKept(t *testing.T) {
	var got seen
	parent := chi.NewRouter()
	parent.Mount("/v1", newRouter(&got))
	r := withState(httptest.NewRequest("GET", "/v1/users/3", nil))
	w := httptest.NewRecorder()
	parent.ServeHTTP(w, r)
	if w.Code != http.StatusNoContent || got.pattern != "/v1/users/{id}" || got.id != "3" {
		t.Fatalf("status %d, pattern %q, id %q; want 204, /v1/users/{id}, 3", w.Code, got.pattern, got.id)
	}
}

// TestRouterBehindTheWrapperSavesChisAllocations: the point of the State's
// route context is the request copy and context node chi no longer makes.
func TestRouterBehindTheWrapperSavesChisAllocations(t *testing.T) {
	rt := newRouter(&seen{})
	w := httptest.NewRecorder()
	plain := httptest.NewRequest("GET", "/users/7", nil)
	behind := withState(httptest.NewRequest("GET", "/users/7", nil))
	without := testing.AllocsPerRun(100, func() { rt.ServeHTTP(w, plain) })
	with := testing.AllocsPerRun(100, func() { rt.ServeHTTP(w, behind) })
	if with > without-2 {
		t.Fatalf("behind the wrapper the router allocates %v times a request, without it %v: want two fewer (chi's request copy and context node)", with, without)
	}
}

// TestContextReadWhileTheRouterReturns is the outbound call's case: a
// goroutine the handler started (a transport's read loop) still walks the
// request context while the router clears the State's route context.
// Under -race this fails if the State's slot is not safe to read then.
func TestContextReadWhileTheRouterReturns(t *testing.T) {
	type probe struct{}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	mux := chi.NewRouter()
	mux.Get("/call", func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
					_ = ctx.Value(probe{})
					_ = ctx.Value(chi.RouteCtxKey)
				}
			}
		}()
	})
	rt := chihead.Wrap(mux)
	for range 50 {
		rt.ServeHTTP(httptest.NewRecorder(), withState(httptest.NewRequest("GET", "/call", nil)))
	}
	close(stop)
	readers.Wait()
}
