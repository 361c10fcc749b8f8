package authn_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/svckit/svc/internal/reqfacts"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/telemetry"
)

// What the gate leaves on a request (itself for the route markers, the
// caller) reaches the handler alike without the telemetry wrapper (a
// context node), behind it (the wrapper's State), and behind it with the
// State's places all taken (a context node again).
func TestGateLeavesTheSameBehindTheWrapper(t *testing.T) {
	stacks := []struct {
		name string
		wrap func(t *testing.T, h http.Handler) http.Handler
	}{
		{"no wrapper", func(_ *testing.T, h http.Handler) http.Handler { return h }},
		{"wrapper", behindWrapper},
		{"wrapper, State full", func(t *testing.T, h http.Handler) http.Handler { return behindWrapper(t, fillState(h)) }},
	}
	cases := []struct {
		name, path, token string
		status            int
		body, challenge   string
	}{
		{"admitted", "/me", "alice-token", 200, "hello alice", ""},
		{"admitted, marker passes", "/reports/", "alice-token", 200, "hello alice", ""},
		{"admitted, marker refuses in the gate's name", "/admin", "alice-token", 403, "", `error="insufficient_scope"`},
		{"anonymous route", "/hello", "", 200, "hello stranger", ""},
		{"excluded path", "/docs/x", "", 200, "hello stranger", ""},
		{"excluded path, token not read", "/docs/x", "alice-token", 200, "hello stranger", ""},
	}
	for _, st := range stacks {
		for _, c := range cases {
			t.Run(st.name+"/"+c.name, func(t *testing.T) {
				g, err := authn.New(newFake(), authn.Exclude("/docs/*"))
				if err != nil {
					t.Fatal(err)
				}
				h, err := g.Handler(exampleRouter())
				if err != nil {
					t.Fatal(err)
				}
				srv := httptestServer(t, st.wrap(t, h))
				var hdr http.Header
				if c.token != "" {
					hdr = bearerHeader(c.token)
				}
				got := do(t, srv, "GET", c.path, hdr, "")
				if got.status != c.status {
					t.Fatalf("status %d, want %d (%s)", got.status, c.status, got.body)
				}
				if c.body != "" && got.body != c.body {
					t.Fatalf("body %q, want %q", got.body, c.body)
				}
				if ch := got.header.Get("WWW-Authenticate"); !strings.Contains(ch, c.challenge) || (c.challenge == "") != (ch == "") {
					t.Fatalf("WWW-Authenticate %q, want %q", ch, c.challenge)
				}
			})
		}
	}
}

// A gate inside another: an excluded path of the inner one still shows
// the outer one's caller, and the inner one's caller wins where it
// admits, with or without the wrapper.
func TestGateInsideAGate(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("wrapper %t", wrapped), func(t *testing.T) {
			inner, err := authn.New(newFake(), authn.Exclude("/docs/*"))
			if err != nil {
				t.Fatal(err)
			}
			h, err := inner.Handler(exampleRouter())
			if err != nil {
				t.Fatal(err)
			}
			outerV := newFake()
			outerV.callers["alice-token"] = bearer.Principal{Subject: "outer", Authenticated: true}
			outer, err := authn.New(outerV)
			if err != nil {
				t.Fatal(err)
			}
			if h, err = outer.Handler(h); err != nil {
				t.Fatal(err)
			}
			if wrapped {
				h = behindWrapper(t, h)
			}
			srv := httptestServer(t, h)
			for path, want := range map[string]string{"/docs/x": "hello outer", "/me": "hello alice"} {
				if got := do(t, srv, "GET", path, bearerHeader("alice-token"), ""); got.status != 200 || got.body != want {
					t.Fatalf("%s: %d %q, want 200 %q", path, got.status, got.body, want)
				}
			}
		})
	}
}

func behindWrapper(t *testing.T, h http.Handler) http.Handler {
	t.Helper()
	tel, err := telemetry.New()
	if err != nil {
		t.Fatal(err)
	}
	return tel.Handler(h)
}

// fillState takes every place of the request's State, as many components
// would.
func fillState(next http.Handler) http.Handler {
	type filler struct{ n int }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := reqfacts.From(r.Context())
		for i := 0; st.Carry(filler{i}, i); i++ {
		}
		next.ServeHTTP(w, r)
	})
}
