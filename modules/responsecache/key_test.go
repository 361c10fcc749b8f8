package responsecache_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/requestid"
	"github.com/svckit/svc/modules/responsecache"
	"github.com/svckit/svc/modules/store"
)

func newComponent(t *testing.T) *responsecache.Component {
	t.Helper()
	c, err := responsecache.New(responsecache.Store(store.NewMemory()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A hit must not hand one caller the headers an outer middleware set for
// the request that filled the cache (its request ID, here).
func TestAHitKeepsTheHeadersOuterMiddlewaresSetForThisRequest(t *testing.T) {
	h := &counted{header: http.Header{"Cache-Control": {"max-age=60"}}}
	r := chi.NewRouter()
	r.With(authn.Anonymous, responsecache.Cached()).Get("/catalog", h.ServeHTTP)
	srv := behindtest.Stack(t, r, behindtest.Telemetry(t), newComponent(t).Middleware)
	for i, id := range []string{"first-caller", "second-caller"} {
		resp := behindtest.Do(t, srv, "GET", "/catalog", "", "", requestid.Header, id)
		body := behindtest.Body(t, resp)
		if body != "run 1 lang= q=" {
			t.Fatalf("request %d: %q", i, body)
		}
		if got := resp.Header.Get(requestid.Header); got != id {
			t.Fatalf("request %d: X-Request-ID %q, want its own %q", i, got, id)
		}
	}
}

// RFC 9111 §2: the primary cache key is the method and the target URI,
// whose authority (Host) names the tenant on a virtual-hosted app.
func TestTheHostIsPartOfTheKey(t *testing.T) {
	var runs atomic.Int64
	r := chi.NewRouter()
	r.With(authn.Anonymous, responsecache.Cached()).Get("/catalog", func(w http.ResponseWriter, r *http.Request) {
		runs.Add(1)
		w.Header().Set("Cache-Control", "max-age=60")
		_, _ = fmt.Fprintf(w, "catalog of %s", r.Host)
	})
	srv := behindtest.Stack(t, r, newComponent(t).Middleware)
	for _, host := range []string{"tenant-a.example", "tenant-b.example", "tenant-a.example"} {
		req, _ := http.NewRequest("GET", srv.URL+"/catalog", nil)
		req.Host = host
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if body := behindtest.Body(t, resp); body != "catalog of "+host {
			t.Fatalf("%s was served %q", host, body)
		}
	}
	if n := runs.Load(); n != 2 {
		t.Fatalf("%d runs, want 2 (one per host)", n)
	}
}

// RFC 9111 §3.5: a response to a request carrying Authorization is not
// reused for another request unless the response says it may be (public,
// s-maxage). Without the gate (an excluded path, or the marker on a plain
// net/http app) the caller is not known to be authenticated, but the
// handler may still have answered for its credentials.
func TestCachedNeverStoresARequestCarryingAuthorization(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("GET /report", responsecache.Cached()(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, _, ok := r.BasicAuth()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="r"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Cache-Control", "max-age=60")
		_, _ = fmt.Fprintf(w, "report for %s", user)
	})))
	srv := httptest.NewServer(newComponent(t).Middleware(mux))
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest("GET", srv.URL+"/report", nil)
	req.SetBasicAuth("alice", "secret")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if body := behindtest.Body(t, resp); body != "report for alice" {
		t.Fatalf("%q", body)
	}
	resp, err = srv.Client().Get(srv.URL + "/report")
	if err != nil {
		t.Fatal(err)
	}
	if body := behindtest.Body(t, resp); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a caller without credentials got %d %q", resp.StatusCode, body)
	}
}
