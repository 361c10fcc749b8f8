package reqfacts

import (
	"strings"
	"testing"
)

func TestExclusionHolds(t *testing.T) {
	// As Exclude("/public/*") matches: under the prefix, or the bare
	// "/public", never "/publicx", another segment.
	public := func(p string) bool { return strings.HasPrefix(p, "/public/") || p == "/public" }
	for _, c := range []struct {
		decoded, escaped string
		want             bool
	}{
		{"/public/x", "/public/x", true},
		{"/public/a b", "/public/a%20b", true},
		{"/public/x", "/public%2Fx", false},
		{"/public/../secret", "/public/../secret", false},
		{"/public/./x", "/public/./x", false},
		{"/public/..x", "/public/..x", true},
		{"/publicx", "/publicx", false},
		{"/publicx/y", "/publicx/y", false},
		{"/other", "/other", false},
	} {
		if got := ExclusionHolds(public, c.decoded, c.escaped); got != c.want {
			t.Errorf("%q (%q): %v, want %v", c.decoded, c.escaped, got, c.want)
		}
	}
}
