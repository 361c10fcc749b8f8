package authn_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// The check hook, one test per rule of the spec's "Post-verification hook".

func TestCheckHookRunsAfterVerifyAndReplacesThePrincipal(t *testing.T) {
	type extra struct{ Tenant string }
	var seenHeader string
	hook := func(_ context.Context, p bearer.Principal, r *http.Request) (bearer.Principal, error) {
		seenHeader = r.Header.Get("X-Tenant")
		p.Extra = extra{Tenant: "acme"}
		return p, nil
	}
	r := exampleRouter()
	r.Get("/tenant", func(w http.ResponseWriter, r *http.Request) {
		p, _ := authn.PrincipalFrom(r.Context())
		_, _ = w.Write([]byte(p.Extra.(extra).Tenant))
	})
	srv := gateServer(t, nil, r, newFake(), authn.Check(hook))
	h := bearerHeader("alice-token")
	h.Set("X-Tenant", "t1")
	if got := do(t, srv, "GET", "/tenant", h, ""); got.body != "acme" || seenHeader != "t1" {
		t.Fatalf("%d %q %q", got.status, got.body, seenHeader)
	}
}

func TestCheckHookZeroPrincipalRefusesAsRevoked(t *testing.T) {
	hook := func(context.Context, bearer.Principal, *http.Request) (bearer.Principal, error) {
		return bearer.Principal{}, nil
	}
	srv := gateServer(t, svcerrors.New(), exampleRouter(), newFake(), authn.Check(hook))
	got := do(t, srv, "GET", "/me", bearerHeader("alice-token"), "")
	if got.status != 401 || got.json["reason"] != "revoked" || got.header.Get("WWW-Authenticate") != `Bearer error="invalid_token"` {
		t.Fatalf("%d %s", got.status, got.body)
	}
}

func TestCheckHookRunsOnEveryVerifiedRequestOnly(t *testing.T) {
	var calls atomic.Int32
	hook := func(_ context.Context, p bearer.Principal, _ *http.Request) (bearer.Principal, error) {
		calls.Add(1)
		return p, nil
	}
	srv := gateServer(t, nil, exampleRouter(), newFake(), authn.Check(hook), authn.Exclude("/healthz"))
	do(t, srv, "GET", "/me", bearerHeader("alice-token"), "")
	do(t, srv, "GET", "/me", bearerHeader("alice-token"), "")    // same token again: runs again
	do(t, srv, "GET", "/hello", bearerHeader("alice-token"), "") // anonymous route with a token
	if calls.Load() != 3 {
		t.Fatalf("hook ran %d times, want 3", calls.Load())
	}
	do(t, srv, "GET", "/hello", nil, "")                           // no token
	do(t, srv, "GET", "/healthz", bearerHeader("alice-token"), "") // excluded
	do(t, srv, "GET", "/me", bearerHeader("expired-token"), "")    // did not verify
	if calls.Load() != 3 {
		t.Fatalf("hook ran %d times, want still 3", calls.Load())
	}
}

func TestCheckHookErrors(t *testing.T) {
	cases := []struct {
		name   string
		ret    func(bearer.Principal) (bearer.Principal, error)
		status int
		anchor string
	}{
		{"known rejection is rendered", func(bearer.Principal) (bearer.Principal, error) {
			return bearer.Principal{}, &svcerrors.DeadlineExceeded{Timeout: time.Second}
		}, 504, "deadline-exceeded"},
		{"unknown error is a 500", func(bearer.Principal) (bearer.Principal, error) {
			return bearer.Principal{}, errors.New("session store down at 10.1.2.3")
		}, 500, ""},
		{"a framework HTTP error is a 500", func(bearer.Principal) (bearer.Principal, error) {
			return bearer.Principal{}, &svcerrors.HTTPError{Status: http.StatusForbidden}
		}, 500, ""},
		{"not an authenticated principal is a 500", func(bearer.Principal) (bearer.Principal, error) {
			return bearer.Principal{Subject: "x"}, nil
		}, 500, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hook := func(_ context.Context, p bearer.Principal, _ *http.Request) (bearer.Principal, error) {
				return tc.ret(p)
			}
			srv := gateServer(t, svcerrors.New(), exampleRouter(), newFake(), authn.Check(hook))
			got := do(t, srv, "GET", "/me", bearerHeader("alice-token"), "")
			if got.status != tc.status || strings.Contains(got.body, "10.1.2.3") || strings.Contains(got.body, "hello") {
				t.Fatalf("%d %s", got.status, got.body)
			}
			if tc.anchor != "" && got.json["type"] != docs+tc.anchor {
				t.Fatalf("%s", got.body)
			}
		})
	}
}

func TestSignOutComparesWholeSeconds(t *testing.T) {
	signedOut := time.Unix(1_700_000_000, 900_000_000) // .9 s into its second
	s := &authn.SignOuts{Now: func() time.Time { return signedOut.Add(time.Minute) }}
	s.SignOut("https://idp.test", "alice", signedOut)
	caller := func(sub string, iat time.Time) bearer.Principal {
		return bearer.Principal{Subject: sub, Issuer: "https://idp.test", Authenticated: true, Claims: &bearer.Claims{IssuedAt: iat}}
	}
	cases := []struct {
		name    string
		p       bearer.Principal
		refused bool
	}{
		{"issued a second before", caller("alice", time.Unix(1_699_999_999, 0)), true},
		{"issued in the sign-out's second, earlier", caller("alice", time.Unix(1_700_000_000, 100_000_000)), true},
		{"issued in the sign-out's second, later", caller("alice", time.Unix(1_700_000_000, 950_000_000)), true},
		{"issued the next second", caller("alice", time.Unix(1_700_000_001, 0)), false},
		{"no iat", caller("alice", time.Time{}), true},
		{"another subject", caller("bob", time.Unix(1_600_000_000, 0)), false},
	}
	for _, tc := range cases {
		got, err := s.Check(context.Background(), tc.p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if refused := !got.Authenticated; refused != tc.refused {
			t.Errorf("%s: refused = %v, want %v", tc.name, refused, tc.refused)
		}
	}
}

func TestSignOutsForgetAfterTheTokenLifetime(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	s := &authn.SignOuts{MaxTokenLifetime: time.Hour, Now: func() time.Time { return now }}
	s.SignOut("i", "old", now)
	now = now.Add(2 * time.Hour)
	s.SignOut("i", "new", now) // forgets "old" on the way
	p := bearer.Principal{Subject: "old", Issuer: "i", Authenticated: true, Claims: &bearer.Claims{}}
	if got, _ := s.Check(context.Background(), p, nil); !got.Authenticated {
		t.Fatal("an entry older than the token lifetime is still refusing")
	}
}

// TestCheckHookRefusalNamesTheMetadata: with Resource set, every Bearer
// challenge names the metadata, also that of a refusal the hook raises.
func TestCheckHookRefusalNamesTheMetadata(t *testing.T) {
	hook := func(ctx context.Context, _ bearer.Principal, _ *http.Request) (bearer.Principal, error) {
		return bearer.Principal{}, fmt.Errorf("tenant: %w", &authn.Refusal{Kind: authn.KindInsufficientScope, Scopes: []string{"admin"}})
	}
	srv := gateServer(t, svcerrors.New(), exampleRouter(), newFake(), authn.Resource("https://api.example.com/"), authn.Check(hook))
	got := do(t, srv, "GET", "/me", bearerHeader("alice-token"), "")
	want := `Bearer error="insufficient_scope", scope="admin", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"`
	if got.status != 403 || got.header.Get("WWW-Authenticate") != want || got.json["type"] != docs+"insufficient-scope" {
		t.Fatalf("%d %q %s", got.status, got.header.Get("WWW-Authenticate"), got.body)
	}
}

// A hook or handler may hand every request the same *Refusal; the gate
// names its metadata in a copy, so concurrent refusals do not race (-race;
// newCounting, as the fake verifier alone counts its calls unlocked).
func TestSharedRefusalIsNeverWritten(t *testing.T) {
	shared := &authn.Refusal{Kind: authn.KindInsufficientScope, Scopes: []string{"admin"}}
	hook := func(context.Context, bearer.Principal, *http.Request) (bearer.Principal, error) {
		return bearer.Principal{}, shared
	}
	r := exampleRouter()
	r.Get("/mine", func(w http.ResponseWriter, req *http.Request) { authn.RefuseRoute(w, req, shared) })
	hooked := gateServer(t, svcerrors.New(), exampleRouter(), newCounting(), authn.Resource("https://api.example.com/"), authn.Check(hook))
	routed := gateServer(t, svcerrors.New(), r, newCounting(), authn.Resource("https://api.example.com/"))
	want := `Bearer error="insufficient_scope", scope="admin", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"`
	errs := make(chan string, 8)
	for i := range 8 {
		go func() {
			srv, path := hooked, "/me"
			if i%2 == 1 {
				srv, path = routed, "/mine"
			}
			got := do(t, srv, "GET", path, bearerHeader("alice-token"), "")
			if got.status != 403 || got.header.Get("WWW-Authenticate") != want {
				errs <- fmt.Sprintf("%s: %d %q", path, got.status, got.header.Get("WWW-Authenticate"))
				return
			}
			errs <- ""
		}()
	}
	for range 8 {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}
