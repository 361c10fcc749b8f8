package reqfacts

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
	if got := none.ClientAddress(r); got != "192.0.2.1" {
		t.Fatalf("ClientAddress without proxies = %q, want the peer 192.0.2.1", got)
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

func TestCarryReplacesByKeyAndRefusesWhenFull(t *testing.T) {
	var s State
	if _, ok := s.Carried("a"); ok {
		t.Fatal("an empty State carried something")
	}
	keys := make([]any, maxCarried)
	for i := range keys {
		keys[i] = string(rune('a' + i))
	}
	for i, k := range keys {
		if !s.Carry(k, i) {
			t.Fatalf("Carry(%v) refused with %d carried", k, i)
		}
	}
	// The nearest middleware wins: a second Carry of a key replaces it.
	if !s.Carry("b", "inner") {
		t.Fatal("Carry refused to replace a key it holds")
	}
	if v, ok := s.Carried("b"); !ok || v != "inner" {
		t.Fatalf("Carried(b) = %v %v, want inner", v, ok)
	}
	if s.Carry("over", 5) {
		t.Fatal("a full State took one key more")
	}
	if _, ok := s.Carried("over"); ok {
		t.Fatal("Carried found the key Carry refused")
	}
	last := len(keys) - 1
	if v, ok := s.Carried(keys[last]); !ok || v != last {
		t.Fatalf("Carried(%v) = %v %v", keys[last], v, ok)
	}
}

func TestRoot(t *testing.T) {
	var s State
	if _, ok := s.Root(); ok {
		t.Fatal("Root reported before SetRoot")
	}
	s.SetRoot("/api/orders")
	if p, ok := s.Root(); !ok || p != "/api/orders" {
		t.Fatalf("Root = %q %v", p, ok)
	}
}

// A context carrying a State answers what it carries as context values;
// any other key goes on to the parent, and a nearer node wins.
func TestContextAnswersCarriedKeys(t *testing.T) {
	type k string
	parent := context.WithValue(context.Background(), k("parent"), "p")
	s := &State{}
	ctx := With(parent, s)
	if ctx.Value(k("a")) != nil {
		t.Fatal("an empty State answered a key")
	}
	s.Carry(k("a"), "carried")
	for key, want := range map[any]any{k("a"): "carried", k("parent"): "p", k("none"): nil, Key(): s} {
		if got := ctx.Value(key); got != want {
			t.Errorf("Value(%v) = %v, want %v", key, got, want)
		}
	}
	if got := context.WithValue(ctx, k("a"), "nearer").Value(k("a")); got != "nearer" {
		t.Errorf("a nearer node lost to the State: %v", got)
	}
}

// The places past the first few are allocated when needed; a nested
// wrapper's State copies them, so that what it carries leaves the outer
// State's answers alone.
func TestCarryPastThePlacesInTheState(t *testing.T) {
	var outer State
	for i := range inPlace + 1 {
		if !outer.Carry(i, "outer") {
			t.Fatalf("Carry(%d) refused", i)
		}
	}
	var inner State
	inner.Inherit(&outer)
	if !inner.Carry(inPlace, "inner") || !inner.Carry("new", "inner") {
		t.Fatal("the inner State refused a key")
	}
	for _, tc := range []struct {
		s    *State
		key  any
		want any
	}{
		{&outer, inPlace, "outer"}, {&outer, "new", nil}, {&outer, 0, "outer"},
		{&inner, inPlace, "inner"}, {&inner, "new", "inner"}, {&inner, 0, "outer"},
	} {
		if v, _ := tc.s.Carried(tc.key); v != tc.want {
			t.Errorf("Carried(%v) = %v, want %v", tc.key, v, tc.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		var s State
		for i := range inPlace {
			s.Carry(i, nil)
		}
	}); n != 0 {
		t.Fatalf("carrying %d values allocates %v times, want 0", inPlace, n)
	}
}
