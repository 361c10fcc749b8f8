package reqstate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

type countingFinder struct{ calls int }

func (f *countingFinder) FindRoute(*http.Request) (string, bool) {
	f.calls++
	return "/found", true
}

func TestRouteAsksTheFinderOnlyWhenTheGateDidNotLook(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/x", nil)

	var s State
	f := &countingFinder{}
	s.SetFinder(f)
	for range 2 {
		if p, ok := s.Route(r); p != "/found" || !ok {
			t.Fatalf("Route = %q %v", p, ok)
		}
	}
	if f.calls != 1 {
		t.Fatalf("finder asked %d times, want once", f.calls)
	}

	var looked State
	f = &countingFinder{}
	looked.SetFinder(f)
	looked.SetRoute("", false) // the gate looked: no route
	if p, ok := looked.Route(r); p != "" || ok || f.calls != 0 {
		t.Fatalf("Route = %q %v after the gate found none; finder asked %d times", p, ok, f.calls)
	}

	var none State
	if p, ok := none.Route(r); p != "" || ok {
		t.Fatalf("Route without a finder = %q %v", p, ok)
	}
	if _, ok := none.ClientAddress(r); ok {
		t.Fatal("ClientAddress without a gate reported one")
	}
	if _, ok := none.Subject(); ok {
		t.Fatal("Subject reported without one set")
	}
}

func TestFromWithoutState(t *testing.T) {
	if From(context.Background()) != nil {
		t.Fatal("From found a State in an empty context")
	}
	s := &State{}
	if From(With(context.Background(), s)) != s {
		t.Fatal("From did not return the State put in")
	}
}
