package behind

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestPaths(t *testing.T) {
	p, err := NewPaths("x", []string{"/api/*", "/status"}, []string{"/api/internal/*"})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]bool{
		"/api":         true,
		"/api/orders":  true,
		"/status":      true,
		"/status/more": false,
		"/apix":        false,
		// The bare prefix holds only on a route the exclusion covers;
		// with no route known the component stays on.
		"/api/internal":   true,
		"/api/internal/x": false,
		"/other":          false,
		// An exclusion holds only as the router reads the path: an
		// escaped slash leaves it, and so does a dot segment.
		"/api%2Finternal%2Fx": true,
		"/api/internal%2Fx":   true,
		"/api/internal/../x":  true,
		"/api/internal/./x":   true,
		// An escape that changes no segment keeps it.
		"/api/internal/a%20b": false,
	}
	for path, want := range cases {
		if got := p.Applies(httptest.NewRequest("GET", path, nil)); got != want {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
	for _, bad := range []string{"api", "/a/*/b", "/a*", "/{id}"} {
		if _, err := NewPaths("ratelimit", []string{bad}, nil); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The path from the app's root survives a mount that strips a prefix, and
// the outermost component's record wins.
func TestRootIsKeptUnderAMount(t *testing.T) {
	var seen string
	inner := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		r = With(r, struct{ k int }{2}, "inner")
		seen = Root(r) + " " + r.URL.Path
	})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.StripPrefix("/v1", inner).ServeHTTP(w, With(r, struct{ k int }{1}, "outer"))
	})
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/v1/orders", nil))
	if seen != "/v1/orders /orders" {
		t.Fatalf("got %q", seen)
	}
}

func TestAnyMatch(t *testing.T) {
	cases := []struct {
		lines  []string
		etag   string
		strong bool
		want   bool
	}{
		{[]string{`"a"`}, `"a"`, true, true},
		{[]string{`W/"a"`}, `"a"`, true, false},
		{[]string{`W/"a"`}, `"a"`, false, true},
		{[]string{`"a"`}, `W/"a"`, true, false},
		{[]string{`"b", "a"`}, `"a"`, true, true},
		{[]string{`"b"`, `"a"`}, `"a"`, true, true},
		{[]string{`*`}, `"a"`, true, true},
		{[]string{`"b"`}, `"a"`, false, false},
		{[]string{`a`}, `"a"`, false, false},
		{[]string{`"a`}, `"a"`, false, false},
	}
	for _, c := range cases {
		if got := AnyMatch(c.lines, c.etag, c.strong); got != c.want {
			t.Errorf("AnyMatch(%q, %q, strong=%v) = %v", c.lines, c.etag, c.strong, got)
		}
	}
}

// Root keeps the path escaped, so two paths a router serves from different
// routes never share a cache entry or an idempotency fingerprint.
func TestRootIsEscaped(t *testing.T) {
	a := Root(With(httptest.NewRequest("GET", "/files/a%2Fb", nil), struct{}{}, 1))
	b := Root(With(httptest.NewRequest("GET", "/files/a/b", nil), struct{}{}, 1))
	if a != "/files/a%2Fb" || b != "/files/a/b" {
		t.Fatalf("roots %q and %q", a, b)
	}
}
