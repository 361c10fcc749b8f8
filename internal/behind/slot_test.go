package behind

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/svckit/svc/internal/reqfacts"
)

type slotA struct{ name string }
type slotB struct{ name string }

func TestSlot(t *testing.T) {
	builds := 0
	a := NewSlot(func() (*slotA, error) { builds++; return &slotA{name: "default"}, nil })
	b := NewSlot(func() (*slotB, error) { return &slotB{name: "default b"}, nil })
	mine := &slotA{name: "mine"}

	var gotA *slotA
	var gotB *slotB
	var root string
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotA, gotB, root = a.For(r), b.For(r), Root(r)
	})
	// The outer component records the root path; a mount rewrites the
	// path before the inner one, which must not record it again.
	h := a.Middleware(mine, http.StripPrefix("/mount", b.Middleware(&slotB{name: "inner b"}, inner)))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/mount/x", nil))
	if gotA != mine || gotB == nil || gotB.name != "inner b" || root != "/mount/x" {
		t.Fatalf("got %v, %v, root %q: each slot must see its own middleware's component and the outer root", gotA, gotB, root)
	}
	if builds != 0 {
		t.Fatalf("the default was built %d times with a component present", builds)
	}

	bare := httptest.NewRequest(http.MethodGet, "/", nil)
	for range 3 {
		if got := a.For(bare); got == nil || got.name != "default" {
			t.Fatalf("no middleware: got %v, want the default", got)
		}
	}
	if builds != 1 {
		t.Fatalf("default built %d times, want once", builds)
	}
}

// The markers look their component up on every request; the rate
// limiter's admitted path has a 0-allocation goal.
func TestSlotForAllocatesNothing(t *testing.T) {
	s := NewSlot(func() (*slotA, error) { return &slotA{}, nil })
	c := &slotA{}
	var r *http.Request
	s.Middleware(c, http.HandlerFunc(func(_ http.ResponseWriter, req *http.Request) { r = req })).
		ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	if n := testing.AllocsPerRun(100, func() {
		if s.For(r) != c {
			t.Fatal("wrong component")
		}
	}); n != 0 {
		t.Fatalf("For allocates %v times per call, want 0", n)
	}
}

// withState returns a request carrying an empty reqfacts.State, as svc's
// telemetry wrapper makes it.
func withState(path string) (*http.Request, *reqfacts.State) {
	st := &reqfacts.State{}
	r := httptest.NewRequest(http.MethodGet, path, nil)
	return r.WithContext(reqfacts.With(r.Context(), st)), st
}

// Behind svc's telemetry wrapper the components ride in the request's
// State: the same answers as on the context, and no allocation.
func TestSlotInRequestState(t *testing.T) {
	a := NewSlot(func() (*slotA, error) { return &slotA{name: "default"}, nil })
	b := NewSlot(func() (*slotB, error) { return &slotB{name: "default b"}, nil })
	mine, innerB := &slotA{name: "mine"}, &slotB{name: "inner b"}

	var gotA *slotA
	var gotB *slotB
	var root string
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotA, gotB, root = a.For(r), b.For(r), Root(r)
	})
	h := a.Middleware(mine, http.StripPrefix("/mount", b.Middleware(&slotB{name: "outer b"}, b.Middleware(innerB, inner))))
	r, _ := withState("/mount/x")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if gotA != mine || gotB != innerB || root != "/mount/x" {
		t.Fatalf("got %v, %v, root %q: want each slot's nearest component and the root the outer one saw", gotA, gotB, root)
	}

	flat := a.Middleware(mine, b.Middleware(innerB, inner))
	r, _ = withState("/x")
	w := httptest.NewRecorder()
	if n := testing.AllocsPerRun(100, func() { flat.ServeHTTP(w, r) }); n != 0 {
		t.Fatalf("two components in a State allocate %v times per request, want 0", n)
	}
}

// A State full of other components leaves the slot on the context.
func TestSlotFallsBackToTheContextWhenTheStateIsFull(t *testing.T) {
	a := NewSlot(func() (*slotA, error) { return &slotA{name: "default"}, nil })
	mine := &slotA{name: "mine"}
	r, st := withState("/x")
	for i := range 4 {
		st.Carry(i, i)
	}
	var got *slotA
	a.Middleware(mine, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = a.For(r) })).
		ServeHTTP(httptest.NewRecorder(), r)
	if got != mine {
		t.Fatalf("got %v, want the middleware's component", got)
	}
}

// The app's set of components is put on a request once; each marker finds
// its own in it, a nearer middleware wins over it, and behind svc's
// telemetry wrapper the lookup allocates nothing.
func TestComponentsSet(t *testing.T) {
	a := NewSlot(func() (*slotA, error) { return &slotA{name: "default"}, nil })
	b := NewSlot(func() (*slotB, error) { return &slotB{name: "default b"}, nil })
	appA, appB, nearB := &slotA{name: "app"}, &slotB{name: "app b"}, &slotB{name: "near b"}
	set, err := NewComponents(appA, appB)
	if err != nil {
		t.Fatal(err)
	}
	var gotA *slotA
	var gotB *slotB
	var root string
	inner := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { gotA, gotB, root = a.For(r), b.For(r), Root(r) })

	for _, state := range []bool{true, false} {
		r := httptest.NewRequest(http.MethodGet, "/mount/x", nil)
		if state {
			r, _ = withState("/mount/x")
		}
		set.Middleware(http.StripPrefix("/mount", inner)).ServeHTTP(httptest.NewRecorder(), r)
		if gotA != appA || gotB != appB || root != "/mount/x" {
			t.Fatalf("state %v: got %v, %v, root %q: want the app's components and the root path", state, gotA, gotB, root)
		}
		set.Middleware(b.Middleware(nearB, inner)).ServeHTTP(httptest.NewRecorder(), r)
		if gotA != appA || gotB != nearB {
			t.Fatalf("state %v: got %v, %v: want the nearer middleware's b", state, gotA, gotB)
		}
	}

	h := set.Middleware(inner)
	r, _ := withState("/x")
	w := httptest.NewRecorder()
	if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, r) }); n != 0 {
		t.Fatalf("the set allocates %v times per request, want 0", n)
	}

	if _, err := NewComponents(appA, &slotA{}); err == nil {
		t.Fatal("two components of one type accepted")
	}
	if _, err := NewComponents("not a component"); err == nil {
		t.Fatal("a value of no component type accepted")
	}
}
