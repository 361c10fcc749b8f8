package responsecache_test

import (
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/responsecache"
)

// RFC 9111 §4.4: a cache invalidates the target URI when a write to it
// succeeds; a failed write leaves the entry.
func TestASuccessfulWriteInvalidatesTheEntry(t *testing.T) {
	var version atomic.Value
	version.Store("v1")
	r := chi.NewRouter()
	r.With(authn.Anonymous, responsecache.Cached()).Route("/catalog", func(r chi.Router) {
		r.Get("/", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Cache-Control", "max-age=60")
			_, _ = io.WriteString(w, version.Load().(string))
		})
		r.Put("/", func(w http.ResponseWriter, r *http.Request) {
			if body, _ := io.ReadAll(r.Body); string(body) == "fail" {
				version.Store("v3-unseen")
				w.WriteHeader(http.StatusConflict)
				return
			}
			version.Store("v2")
			w.WriteHeader(http.StatusNoContent)
		})
	})
	srv := behindtest.Stack(t, r, newComponent(t).Middleware)
	if body, _ := get(t, srv, "/catalog/", ""); body != "v1" {
		t.Fatal(body)
	}
	if resp := behindtest.Do(t, srv, "PUT", "/catalog/", "", "x"); resp.StatusCode != 204 {
		t.Fatal(resp.StatusCode)
	}
	if body, _ := get(t, srv, "/catalog/", ""); body != "v2" {
		t.Fatalf("after a successful PUT the cache served %q", body)
	}
	if resp := behindtest.Do(t, srv, "PUT", "/catalog/", "", "fail"); resp.StatusCode != 409 {
		t.Fatal(resp.StatusCode)
	}
	if body, _ := get(t, srv, "/catalog/", ""); body != "v2" {
		t.Fatalf("after a refused PUT the cache served %q, want the entry kept", body)
	}
}
