package responsecache_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/responsecache"
	"github.com/svckit/svc/modules/store"
)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

type countingCache struct {
	store.Cache
	gets atomic.Int64
}

func (c *countingCache) Get(ctx context.Context, k store.Key) (store.Entry, bool, error) {
	c.gets.Add(1)
	return c.Cache.Get(ctx, k)
}

// counted answers with a header set and counts its runs per path.
type counted struct {
	runs   atomic.Int64
	header http.Header
	status int
}

func (h *counted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := h.runs.Add(1)
	for k, vs := range h.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if h.status != 0 {
		w.WriteHeader(h.status)
	}
	_, _ = fmt.Fprintf(w, "run %d lang=%s q=%s", n, r.Header.Get("Accept-Language"), r.URL.RawQuery)
}

func setup(t *testing.T, h http.Handler) (*httptest.Server, *clock, *countingCache) {
	t.Helper()
	clk := &clock{now: time.Unix(1_700_000_000, 0)}
	cache := &countingCache{Cache: store.NewMemory(store.Clock(clk.Now))}
	c, err := responsecache.New(responsecache.Store(cache), responsecache.Clock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.With(authn.Anonymous, responsecache.Cached()).Get("/catalog", h.ServeHTTP)
	r.With(responsecache.Shared()).Get("/prices", h.ServeHTTP)
	r.With(authn.Require("admin"), responsecache.Shared()).Get("/admin", h.ServeHTTP)
	return behindtest.Stack(t, r, c.Middleware), clk, cache
}

func get(t *testing.T, srv *httptest.Server, path, token string, headers ...string) (string, *http.Response) {
	t.Helper()
	resp := behindtest.Do(t, srv, "GET", path, token, "", headers...)
	return behindtest.Body(t, resp), resp
}

func TestAnonymousResponsesAreServedFromTheCacheWithAge(t *testing.T) {
	h := &counted{header: http.Header{"Cache-Control": {"public, max-age=60"}}}
	srv, clk, _ := setup(t, h)
	body, resp := get(t, srv, "/catalog", "")
	if body != "run 1 lang= q=" || resp.Header.Get("Age") != "" {
		t.Fatalf("miss: %q %v", body, resp.Header)
	}
	clk.Advance(10 * time.Second)
	body, resp = get(t, srv, "/catalog", "")
	if body != "run 1 lang= q=" || resp.Header.Get("Age") != "10" || resp.Header.Get("Cache-Control") != "public, max-age=60" {
		t.Fatalf("hit: %q %v", body, resp.Header)
	}
	if body, _ = get(t, srv, "/catalog?page=2", ""); body != "run 2 lang= q=page=2" {
		t.Fatalf("the query is part of the key: %q", body)
	}
	if body, _ = get(t, srv, "/catalog", "", "Cache-Control", "no-cache"); body != "run 3 lang= q=" {
		t.Fatalf("a client's no-cache skips the lookup: %q", body)
	}
	clk.Advance(61 * time.Second)
	if body, _ = get(t, srv, "/catalog", ""); body != "run 4 lang= q=" {
		t.Fatalf("served past max-age: %q", body)
	}
}

func TestAuthenticatedResponsesAreStoredOnlyOnSharedRoutes(t *testing.T) {
	h := &counted{header: http.Header{"Cache-Control": {"max-age=60"}}}
	srv, _, _ := setup(t, h)
	for i := range 2 {
		if body, _ := get(t, srv, "/catalog", behindtest.Alice); body != fmt.Sprintf("run %d lang= q=", i+1) {
			t.Fatalf("alice on a Cached route was served from the cache: %q", body)
		}
	}
	if body, _ := get(t, srv, "/catalog", ""); body != "run 3 lang= q=" {
		t.Fatalf("an authenticated response was stored: %q", body)
	}
	if body, _ := get(t, srv, "/prices", behindtest.Alice); body != "run 4 lang= q=" {
		t.Fatalf("%q", body)
	}
	if body, _ := get(t, srv, "/prices", behindtest.Bob); body != "run 4 lang= q=" {
		t.Fatalf("a Shared route was not shared: %q", body)
	}
}

func TestResponsesThatMustNotBeStored(t *testing.T) {
	cases := []struct {
		name   string
		header http.Header
		status int
	}{
		{"no Cache-Control", http.Header{}, 0},
		{"private", http.Header{"Cache-Control": {"private, max-age=60"}}, 0},
		{"no-store", http.Header{"Cache-Control": {"no-store, max-age=60"}}, 0},
		{"no-cache", http.Header{"Cache-Control": {"no-cache, max-age=60"}}, 0},
		{"max-age=0", http.Header{"Cache-Control": {"max-age=0"}}, 0},
		{"s-maxage=0 wins over max-age", http.Header{"Cache-Control": {"max-age=60, s-maxage=0"}}, 0},
		{"sets a cookie", http.Header{"Cache-Control": {"max-age=60"}, "Set-Cookie": {"a=b"}}, 0},
		{"Vary: *", http.Header{"Cache-Control": {"max-age=60"}, "Vary": {"*"}}, 0},
		{"not a 200", http.Header{"Cache-Control": {"max-age=60"}}, http.StatusAccepted},
	}
	for _, c := range cases {
		h := &counted{header: c.header, status: c.status}
		srv, _, _ := setup(t, h)
		get(t, srv, "/catalog", "")
		if body, _ := get(t, srv, "/catalog", ""); body != "run 2 lang= q=" {
			t.Errorf("%s: stored (%q)", c.name, body)
		}
	}
}

// A cache keyed without Vary would serve one client's language to another.
func TestVaryHeadersAreInTheKey(t *testing.T) {
	h := &counted{header: http.Header{"Cache-Control": {"max-age=60"}, "Vary": {"Accept-Language"}}}
	srv, _, _ := setup(t, h)
	steps := []struct{ lang, want string }{
		{"en", "run 1 lang=en q="},
		{"en", "run 1 lang=en q="},
		{"de", "run 2 lang=de q="},
		{"de", "run 2 lang=de q="},
	}
	for i, s := range steps {
		if body, _ := get(t, srv, "/catalog", "", "Accept-Language", s.lang); body != s.want {
			t.Fatalf("step %d: %q, want %q", i, body, s.want)
		}
	}
	// Whatever variant is held, no request gets another language's body.
	if body, _ := get(t, srv, "/catalog", "", "Accept-Language", "en"); body != "run 1 lang=en q=" && body != "run 3 lang=en q=" {
		t.Fatalf("served another variant: %q", body)
	}
}

func TestARefusedRequestCostsNoLookup(t *testing.T) {
	h := &counted{header: http.Header{"Cache-Control": {"max-age=60"}}}
	srv, _, cache := setup(t, h)
	for _, c := range []struct {
		path, token string
		status      int
	}{
		{"/prices", "", 401},
		{"/prices", "forged", 401},
		{"/admin", behindtest.Alice, 403},
		{"/nowhere", behindtest.Alice, 404},
	} {
		if _, resp := get(t, srv, c.path, c.token); resp.StatusCode != c.status {
			t.Fatalf("%s: %d", c.path, resp.StatusCode)
		}
	}
	if n := cache.gets.Load(); n != 0 {
		t.Fatalf("%d lookups for refused requests", n)
	}
}

func TestServeMuxAndExclude(t *testing.T) {
	h := &counted{header: http.Header{"Cache-Control": {"max-age=60"}}}
	mux := http.NewServeMux()
	mux.Handle("GET /a", responsecache.Shared()(h))
	mux.Handle("GET /skip/a", responsecache.Shared()(h))
	c, err := responsecache.New(responsecache.Exclude("/skip/*"))
	if err != nil {
		t.Fatal(err)
	}
	srv := behindtest.Stack(t, mux, c.Middleware)
	for _, want := range []string{"run 1 lang= q=", "run 1 lang= q="} {
		if body, _ := get(t, srv, "/a", behindtest.Alice); body != want {
			t.Fatalf("/a: %q", body)
		}
	}
	for _, want := range []string{"run 2 lang= q=", "run 3 lang= q="} {
		if body, _ := get(t, srv, "/skip/a", behindtest.Alice); body != want {
			t.Fatalf("/skip/a: %q", body)
		}
	}
}

// 100 concurrent misses of one key run the handler once. The handler is
// held until every request has looked the key up, so they all overlap.
func TestOneHundredConcurrentMissesRunTheHandlerOnce(t *testing.T) {
	release := make(chan struct{})
	var runs atomic.Int64
	cache := &countingCache{Cache: store.NewMemory()}
	c, err := responsecache.New(responsecache.Store(cache))
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.With(responsecache.Shared()).Get("/hot", func(w http.ResponseWriter, _ *http.Request) {
		runs.Add(1)
		<-release
		w.Header().Set("Cache-Control", "max-age=60")
		_, _ = w.Write([]byte("hot"))
	})
	h := behindtest.Stack(t, r, c.Middleware).Config.Handler
	const n = 100
	recs := make([]*httptest.ResponseRecorder, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req := httptest.NewRequest("GET", "/hot", nil)
			req.Header.Set("Authorization", "Bearer "+behindtest.Alice)
			recs[i] = httptest.NewRecorder()
			h.ServeHTTP(recs[i], req)
		})
	}
	for cache.gets.Load() < n {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if runs.Load() != 1 {
		t.Fatalf("the handler ran %d times", runs.Load())
	}
	for _, rec := range recs {
		if rec.Code != 200 || rec.Body.String() != "hot" {
			t.Fatalf("%d %q", rec.Code, rec.Body.String())
		}
	}
}

// A hit answers the client's validators itself: a conditional marker
// inside the cache never runs on a hit.
func TestAHitAnswersIfNoneMatchAndIfModifiedSince(t *testing.T) {
	lastModified := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).Format(http.TimeFormat)
	h := &counted{header: http.Header{"Cache-Control": {"max-age=60"}, "ETag": {`"v1"`}, "Last-Modified": {lastModified}}}
	srv, _, _ := setup(t, h)
	get(t, srv, "/catalog", "")
	cases := []struct {
		name    string
		headers []string
		status  int
	}{
		{"matching tag", []string{"If-None-Match", `W/"v1"`}, 304},
		{"other tag", []string{"If-None-Match", `"v0"`}, 200},
		{"not modified since", []string{"If-Modified-Since", lastModified}, 304},
	}
	for _, c := range cases {
		body, resp := get(t, srv, "/catalog", "", c.headers...)
		if resp.StatusCode != c.status || resp.Header.Get("ETag") != `"v1"` || (c.status == 304 && body != "") {
			t.Errorf("%s: %d %q %v", c.name, resp.StatusCode, body, resp.Header)
		}
	}
	if h.runs.Load() != 1 {
		t.Fatalf("handler ran %d times", h.runs.Load())
	}
}
