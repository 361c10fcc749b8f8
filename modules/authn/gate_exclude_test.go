package authn_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// TestExcludedPathsRouteWhereTheyMatch: a path is excluded only as far as
// the route it is routed to. An escaped slash decodes under an excluded
// prefix while chi (which routes on the escaped path) and ServeMux (which
// keeps it inside its segment) send it to a protected route; neither may
// be served without a token.
func TestExcludedPathsRouteWhereTheyMatch(t *testing.T) {
	secret := func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "secret") }
	r := chi.NewRouter()
	r.Get("/public/*", ok)
	r.Get("/{id}", secret)
	mux := authn.NewServeMux()
	mux.HandleFunc("GET /public/", ok)
	mux.HandleFunc("GET /{id}", secret)
	for name, router := range map[string]http.Handler{"chi": r, "servemux": mux} {
		srv := gateServer(t, svcerrors.New(), router, newFake(), authn.Exclude("/public/*"))
		for _, tc := range []struct {
			path   string
			status int
			body   string
		}{
			{"/public/x", 200, "hello stranger"},
			{"/public/a%20b", 200, "hello stranger"},
			{"/public/a%2Fb", 200, "hello stranger"},
			{"/public%2Fx", 401, ""},
			{"/public%2fx", 401, ""},
			// The prefix ends at a segment boundary: "/publicx" is another
			// segment, routed to "/{id}".
			{"/publicx", 401, ""},
			// The bare prefix is routed to "/{id}", a route the exclusion
			// does not cover: authenticated (it was served without a token).
			{"/public", 401, ""},
		} {
			t.Run(name+tc.path, func(t *testing.T) {
				got := do(t, srv, "GET", tc.path, nil, "")
				if got.status != tc.status || (tc.status == 200 && got.body != tc.body) {
					t.Fatalf("%d %q, want %d", got.status, got.body, tc.status)
				}
				if tc.status == 401 && got.header.Get("WWW-Authenticate") != "Bearer" {
					t.Fatalf("challenge %q", got.header.Get("WWW-Authenticate"))
				}
			})
		}
	}
}

// TestExcludedPrefixHoldsNoDotSegments: "/public/../secret.txt" starts with
// an excluded prefix, but a handler that cleans paths (http.FileServer)
// serves /secret.txt; such a path is authenticated.
func TestExcludedPrefixHoldsNoDotSegments(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "public"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"public/a.txt": "public file", "secret.txt": "secret file"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := chi.NewRouter()
	r.Handle("/*", http.FileServer(http.Dir(dir)))
	srv := gateServer(t, svcerrors.New(), r, newFake(), authn.Exclude("/public/*"))
	addr := strings.TrimPrefix(srv.URL, "http://")
	for _, tc := range []struct {
		path, want string
	}{
		{"/public/a.txt", "200 OK"},
		{"/public/../secret.txt", "401 Unauthorized"},
		{"/public/%2e%2e/secret.txt", "401 Unauthorized"},
		{"/public/./../secret.txt", "401 Unauthorized"},
	} {
		// Sent raw, so that nothing on the way cleans the path.
		raw := rawRequest(t, addr, "GET "+tc.path+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		if !strings.HasPrefix(raw, "HTTP/1.1 "+tc.want) || strings.Contains(raw, "secret file") {
			t.Errorf("GET %s: %q, want %s", tc.path, raw, tc.want)
		}
	}
}

// The bare form of a prefix exclusion ("/docs" for "/docs/*") holds where
// the router sends it to a route the exclusion covers, as Huma's /docs
// page is: the documented "/docs/* also matches /docs".
func TestExcludedBarePrefixHoldsForItsOwnRoute(t *testing.T) {
	secret := func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "secret") }
	r := chi.NewRouter()
	r.Get("/docs", ok)
	r.Get("/{id}", secret)
	mux := authn.NewServeMux()
	mux.HandleFunc("GET /docs", ok)
	mux.HandleFunc("GET /{id}", secret)
	for name, router := range map[string]http.Handler{"chi": r, "servemux": mux} {
		srv := gateServer(t, svcerrors.New(), router, newFake(), authn.Exclude("/docs/*"))
		if got := do(t, srv, "GET", "/docs", nil, ""); got.status != 200 || got.body != "hello stranger" {
			t.Errorf("%s /docs: %d %q, want the page, anonymously", name, got.status, got.body)
		}
		if got := do(t, srv, "GET", "/other", nil, ""); got.status != 401 {
			t.Errorf("%s /other: %d, want 401", name, got.status)
		}
	}
}
