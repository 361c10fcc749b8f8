package authnhuma_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/responsecache"
	"github.com/svckit/svc/modules/store"
)

// humaRouters are the four ways to serve a Huma API: svc's adapters, on
// which route markers enforce an operation's scopes before Huma runs, and
// the bare adapters, on which only Huma middlewares do.
var humaRouters = []struct {
	name string
	new  func() (http.Handler, huma.API)
}{
	{"NewChi", func() (http.Handler, huma.API) {
		r := chi.NewRouter()
		return r, authnhuma.NewChi(r, huma.DefaultConfig("Shop", "1.0.0"))
	}},
	{"NewGo", func() (http.Handler, huma.API) {
		mux := http.NewServeMux()
		return mux, authnhuma.NewGo(mux, huma.DefaultConfig("Shop", "1.0.0"))
	}},
	{"bare humachi", func() (http.Handler, huma.API) {
		r := chi.NewRouter()
		return r, humachi.New(r, huma.DefaultConfig("Shop", "1.0.0"))
	}},
	{"bare humago", func() (http.Handler, huma.API) {
		mux := http.NewServeMux()
		return mux, humago.New(mux, huma.DefaultConfig("Shop", "1.0.0"))
	}},
}

type statusOut struct{ Status int }

// counted is an operation that counts its runs and answers status.
func counted(runs *atomic.Int64, status int) func(context.Context, *struct{}) (*statusOut, error) {
	return func(context.Context, *struct{}) (*statusOut, error) {
		runs.Add(1)
		return &statusOut{Status: status}, nil
	}
}

// components are the three components with their state in s.
func components(t *testing.T, s store.Rates) []func(http.Handler) http.Handler {
	t.Helper()
	all, ok := s.(*countingStore)
	if !ok {
		t.Fatal("components: want a *countingStore")
	}
	l, err := ratelimit.New(ratelimit.Store(all))
	if err != nil {
		t.Fatal(err)
	}
	i, err := idempotency.New(idempotency.Store(all))
	if err != nil {
		t.Fatal(err)
	}
	c, err := responsecache.New(responsecache.Store(all))
	if err != nil {
		t.Fatal(err)
	}
	return []func(http.Handler) http.Handler{l.Middleware, i.Middleware, c.Middleware}
}

// admitted checks a 204 and the RateLimit header's policy and remaining
// budget.
func admitted(t *testing.T, resp *http.Response, policy string, remaining string) {
	t.Helper()
	body := behindtest.Body(t, resp)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("status %d, want 204: %s", resp.StatusCode, body)
	}
	if got := resp.Header.Get("RateLimit"); !strings.HasPrefix(got, `"`+policy+`";r=`+remaining+";") {
		t.Fatalf("RateLimit %q, want policy %q with %s left", got, policy, remaining)
	}
}

// limited checks a 429 rate-limit-exceeded with its Retry-After.
func limited(t *testing.T, resp *http.Response) {
	t.Helper()
	p := behindtest.Problem(t, resp, http.StatusTooManyRequests, "rate-limit-exceeded")
	if resp.Header.Get("Retry-After") == "" || p["retry_after"] == nil {
		t.Fatalf("429 without its retry: %v %v", resp.Header, p)
	}
}

// forbidden checks a 403 insufficient-scope naming the scope "write", and
// that no component answered.
func forbidden(t *testing.T, resp *http.Response) {
	t.Helper()
	behindtest.Problem(t, resp, http.StatusForbidden, "insufficient-scope")
	if c := resp.Header.Get("WWW-Authenticate"); !strings.Contains(c, `error="insufficient_scope"`) || !strings.Contains(c, `scope="write"`) {
		t.Fatalf("challenge %q", c)
	}
	for _, h := range []string{"RateLimit", "RateLimit-Policy", "Idempotent-Replayed", "Age", "ETag"} {
		if v := resp.Header.Get(h); v != "" {
			t.Fatalf("a component answered the 403: %s: %s", h, v)
		}
	}
}

// A group's limit is one budget per caller for all the group's operations,
// those of a group inside it included, on every adapter; an operation
// outside the group is not limited.
func TestAGroupLimitIsOneBudgetPerCallerAcrossItsOperations(t *testing.T) {
	for _, rt := range humaRouters {
		t.Run(rt.name, func(t *testing.T) {
			router, api := rt.new()
			var runs atomic.Int64
			grp := huma.NewGroup(api, "/g")
			authnhuma.Group(grp, ratelimit.Limit("1/h", 3, ratelimit.Name("group")))
			huma.Get(grp, "/a", counted(&runs, http.StatusNoContent))
			huma.Post(grp, "/b", counted(&runs, http.StatusNoContent))
			huma.Get(huma.NewGroup(grp, "/in"), "/c", counted(&runs, http.StatusNoContent))
			huma.Get(api, "/free", counted(&runs, http.StatusNoContent))
			srv := behindtest.Stack(t, router, components(t, &countingStore{m: store.NewMemory()})...)

			for i, q := range []struct{ method, path string }{{"GET", "/g/a"}, {"POST", "/g/b"}, {"GET", "/g/in/c"}} {
				admitted(t, behindtest.Do(t, srv, q.method, q.path, behindtest.Alice, ""), "group", string(rune('2'-i)))
			}
			limited(t, behindtest.Do(t, srv, "POST", "/g/b", behindtest.Alice, ""))
			limited(t, behindtest.Do(t, srv, "GET", "/g/in/c", behindtest.Alice, ""))
			admitted(t, behindtest.Do(t, srv, "POST", "/g/b", behindtest.Bob, ""), "group", "2")
			free := behindtest.Do(t, srv, "GET", "/free", behindtest.Alice, "")
			if _ = behindtest.Body(t, free); free.StatusCode != http.StatusNoContent || free.Header.Get("RateLimit") != "" {
				t.Fatalf("outside the group: %d %v", free.StatusCode, free.Header)
			}
			if n := runs.Load(); n != 5 {
				t.Fatalf("the operations ran %d times, want 5", n)
			}
		})
	}
}

// placements put a limit (or any marker) and Require("write") on GET /g/x,
// in every order the options can be given, on a group and per operation.
var placements = []struct {
	name     string
	register func(api huma.API, m func(http.Handler) http.Handler, h func(context.Context, *struct{}) (*statusOut, error))
}{
	{"group: Require, then Group", func(api huma.API, m func(http.Handler) http.Handler, h func(context.Context, *struct{}) (*statusOut, error)) {
		grp := huma.NewGroup(api, "/g")
		grp.UseSimpleModifier(authnhuma.Require("write"))
		authnhuma.Group(grp, m)
		huma.Post(grp, "/x", h)
	}},
	{"group: Group, then Require", func(api huma.API, m func(http.Handler) http.Handler, h func(context.Context, *struct{}) (*statusOut, error)) {
		grp := huma.NewGroup(api, "/g")
		authnhuma.Group(grp, m)
		grp.UseSimpleModifier(authnhuma.Require("write"))
		huma.Post(grp, "/x", h)
	}},
	{"group: Group, Require on the operation", func(api huma.API, m func(http.Handler) http.Handler, h func(context.Context, *struct{}) (*statusOut, error)) {
		grp := huma.NewGroup(api, "/g")
		authnhuma.Group(grp, m)
		huma.Post(grp, "/x", h, authnhuma.Require("write"))
	}},
	{"group without a prefix: Group, then Require", func(api huma.API, m func(http.Handler) http.Handler, h func(context.Context, *struct{}) (*statusOut, error)) {
		grp := huma.NewGroup(api)
		authnhuma.Group(grp, m)
		grp.UseSimpleModifier(authnhuma.Require("write"))
		huma.Post(grp, "/g/x", h)
	}},
	{"operation: Use, then Require", func(api huma.API, m func(http.Handler) http.Handler, h func(context.Context, *struct{}) (*statusOut, error)) {
		huma.Post(api, "/g/x", h, authnhuma.Use(m), authnhuma.Require("write"))
	}},
	{"operation: Require, then Use", func(api huma.API, m func(http.Handler) http.Handler, h func(context.Context, *struct{}) (*statusOut, error)) {
		huma.Post(api, "/g/x", h, authnhuma.Require("write"), authnhuma.Use(m))
	}},
}

// A caller refused 403 for a missing scope spends nothing, whichever order
// the options are given in: no store operation, and the next good caller
// has the whole budget, which everyone shares here.
func TestA403SpendsNoBudgetWhateverTheOrder(t *testing.T) {
	everyone := ratelimit.KeyByRoute(func(*http.Request) string { return "everyone" })
	for _, rt := range humaRouters {
		for _, pl := range placements {
			t.Run(rt.name+"/"+pl.name, func(t *testing.T) {
				router, api := rt.new()
				var runs atomic.Int64
				pl.register(api, ratelimit.Limit("1/h", 3, ratelimit.Name("shared"), everyone), counted(&runs, http.StatusNoContent))
				s := &countingStore{m: store.NewMemory()}
				srv := behindtest.Stack(t, router, components(t, s)...)

				for range 4 {
					forbidden(t, behindtest.Do(t, srv, "POST", "/g/x", behindtest.Reader, "{}"))
				}
				if n, r := s.ops.Load(), runs.Load(); n != 0 || r != 0 {
					t.Fatalf("refused callers made %d store operations and ran the operation %d times", n, r)
				}
				for _, left := range []string{"2", "1", "0"} {
					admitted(t, behindtest.Do(t, srv, "POST", "/g/x", behindtest.Alice, "{}"), "shared", left)
				}
				limited(t, behindtest.Do(t, srv, "POST", "/g/x", behindtest.Bob, "{}"))
				if r := runs.Load(); r != 3 {
					t.Fatalf("the operation ran %d times, want 3", r)
				}
			})
		}
	}
}

// Idempotency on a group: a caller refused 403 stores nothing under its
// Idempotency-Key, in any order of the options; an admitted caller's key
// is claimed and replayed.
func TestAGroupIdempotencyStoresNothingForA403(t *testing.T) {
	for _, rt := range humaRouters {
		for _, pl := range placements {
			t.Run(rt.name+"/"+pl.name, func(t *testing.T) {
				router, api := rt.new()
				var runs atomic.Int64
				pl.register(api, idempotency.Required(), counted(&runs, http.StatusCreated))
				s := &countingStore{m: store.NewMemory()}
				srv := behindtest.Stack(t, router, components(t, s)...)

				for _, body := range []string{`{"item":"pen"}`, `{"item":"ink"}`} {
					forbidden(t, behindtest.Do(t, srv, "POST", "/g/x", behindtest.Reader, body, "Idempotency-Key", "k"))
				}
				forbidden(t, behindtest.Do(t, srv, "POST", "/g/x", behindtest.Reader, "{}"))
				if n, r := s.ops.Load(), runs.Load(); n != 0 || r != 0 {
					t.Fatalf("refused callers made %d store operations and ran the operation %d times", n, r)
				}
				behindtest.Problem(t, behindtest.Do(t, srv, "POST", "/g/x", behindtest.Alice, "{}"), 400, "idempotency-key-invalid")
				for i := range 2 {
					resp := behindtest.Do(t, srv, "POST", "/g/x", behindtest.Alice, `{"item":"pen"}`, "Idempotency-Key", "k")
					if _ = behindtest.Body(t, resp); resp.StatusCode != http.StatusCreated || (resp.Header.Get("Idempotent-Replayed") == "true") != (i == 1) {
						t.Fatalf("request %d: %d %v", i, resp.StatusCode, resp.Header)
					}
				}
				if r := runs.Load(); r != 1 {
					t.Fatalf("the operation ran %d times, want 1", r)
				}
			})
		}
	}
}
