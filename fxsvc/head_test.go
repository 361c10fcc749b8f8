package fxsvc_test

import (
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/conditional"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/responsecache"
)

func head(t *testing.T, srv *fxsvc.Server, method, path, token string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+srv.Addr()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// HEAD meets the components as GET does (issue 24 item 16): a HEAD spends
// rate-limit budget, gets the GET's ETag and 304, and is answered from a
// cached GET without running the handler; a HEAD never fills the cache.
func TestHeadMeetsTheComponentsAsGet(t *testing.T) {
	var runs atomic.Int64
	router := func() *chi.Mux {
		r := chi.NewRouter()
		r.With(authn.Require("read"), ratelimit.Limit("1/h", 3)).Get("/limited", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "limited")
		})
		r.With(authn.Anonymous, responsecache.Cached(), conditional.ETags()).Get("/catalog", func(w http.ResponseWriter, _ *http.Request) {
			runs.Add(1)
			w.Header().Set("Cache-Control", "public, max-age=60")
			_, _ = io.WriteString(w, "catalog")
		})
		return r
	}
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Authn(behindtest.Verifier{}), fxsvc.RateLimits(), fxsvc.Conditional(),
		fxsvc.ResponseCache(), fx.Provide(router), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()

	// Rate limit: a burst of 3 spent by HEAD, GET, HEAD; the next HEAD is
	// refused. A HEAD without a token is refused 401 and spends nothing.
	if resp, _ := head(t, srv, "HEAD", "/limited", ""); resp.StatusCode != 401 {
		t.Fatalf("HEAD without a token: %d", resp.StatusCode)
	}
	for i, method := range []string{"HEAD", "GET", "HEAD"} {
		resp, body := head(t, srv, method, "/limited", behindtest.Reader)
		if resp.StatusCode != 200 || resp.Header.Get("RateLimit") == "" {
			t.Fatalf("%s #%d: %d %v", method, i, resp.StatusCode, resp.Header)
		}
		if (method == "HEAD") != (body == "") {
			t.Fatalf("%s #%d: body %q", method, i, body)
		}
	}
	if resp, _ := head(t, srv, "HEAD", "/limited", behindtest.Reader); resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("HEAD past the budget: %d %v", resp.StatusCode, resp.Header)
	}

	// Cache and ETags: a GET fills the cache, a HEAD is answered from it
	// (headers, Age, the ETag, no body) without running the handler.
	get, body := head(t, srv, "GET", "/catalog", "")
	etag := get.Header.Get("ETag")
	if get.StatusCode != 200 || body != "catalog" || etag == "" {
		t.Fatalf("first GET: %d %q %v", get.StatusCode, body, get.Header)
	}
	hit, body := head(t, srv, "HEAD", "/catalog", "")
	if hit.StatusCode != 200 || body != "" || hit.Header.Get("Age") == "" || hit.Header.Get("ETag") != etag {
		t.Fatalf("HEAD on a cached GET: %d %q %v", hit.StatusCode, body, hit.Header)
	}
	if nm, _ := head(t, srv, "HEAD", "/catalog", "", "If-None-Match", etag); nm.StatusCode != http.StatusNotModified || nm.Header.Get("ETag") != etag {
		t.Fatalf("HEAD with If-None-Match: %d %v", nm.StatusCode, nm.Header)
	}
	if runs.Load() != 1 {
		t.Fatalf("handler ran %d times, want 1", runs.Load())
	}
	// A HEAD on a cold entry runs the handler (with its ETag) and stores
	// nothing: the GET after it runs the handler and gets the body.
	cold, body := head(t, srv, "HEAD", "/catalog?page=2", "")
	if cold.StatusCode != 200 || body != "" || cold.Header.Get("ETag") != etag || cold.Header.Get("Age") != "" {
		t.Fatalf("HEAD on a cold entry: %d %q %v", cold.StatusCode, body, cold.Header)
	}
	if again, body := head(t, srv, "GET", "/catalog?page=2", ""); body != "catalog" || again.Header.Get("Age") != "" {
		t.Fatalf("GET after a cold HEAD: %q %v", body, again.Header)
	}
	if again, _ := head(t, srv, "HEAD", "/catalog?page=2", ""); again.Header.Get("Age") == "" {
		t.Fatalf("HEAD after the GET is not a hit: %v", again.Header)
	}
	if runs.Load() != 3 {
		t.Fatalf("handler ran %d times, want 3", runs.Load())
	}
}

// Without the gate, Serve's chi router answers HEAD as GET too, and the
// ETag marker answers a HEAD's If-None-Match.
func TestHeadWithoutTheGate(t *testing.T) {
	router := func() *chi.Mux {
		r := chi.NewRouter()
		r.With(conditional.ETags()).Get("/doc", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "doc") })
		return r
	}
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Conditional(), fx.Provide(router), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	resp, body := head(t, srv, "HEAD", "/doc", "")
	if resp.StatusCode != 200 || body != "" || resp.Header.Get("ETag") == "" {
		t.Fatalf("HEAD: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if nm, _ := head(t, srv, "HEAD", "/doc", "", "If-None-Match", resp.Header.Get("ETag")); nm.StatusCode != 304 {
		t.Fatalf("HEAD with If-None-Match: %d", nm.StatusCode)
	}
	if post, _ := head(t, srv, "POST", "/doc", ""); post.StatusCode != 405 {
		t.Fatalf("POST: %d", post.StatusCode)
	}
}
