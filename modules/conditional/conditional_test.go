package conditional_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/conditional"
)

const orderBody = `{"id":1,"status":"open"}`

var orderTag = conditional.ETagOf([]byte(orderBody))

var lastModified = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

type app struct {
	reads, writes atomic.Int64
}

func (a *app) router() *chi.Mux {
	current := func(*http.Request) (string, time.Time, error) {
		a.reads.Add(1)
		return orderTag, lastModified, nil
	}
	write := func(w http.ResponseWriter, _ *http.Request) {
		a.writes.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}
	r := chi.NewRouter()
	r.With(conditional.ETags()).Get("/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		if chi.URLParam(r, "id") == "9" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=60")
		_, _ = w.Write([]byte(orderBody))
	})
	r.With(conditional.ETags()).Get("/dated", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("ETag", `W/"v7"`)
		w.Header().Set("Last-Modified", lastModified.Format(http.TimeFormat))
		_, _ = w.Write([]byte("dated"))
	})
	r.With(conditional.Require(current)).Put("/orders/{id}", write)
	r.With(conditional.Match(current)).Patch("/orders/{id}", write)
	return r
}

func TestReadsAnswer304WhenTheClientHoldsTheRepresentation(t *testing.T) {
	a := &app{}
	srv := behindtest.Stack(t, a.router())
	after := lastModified.Add(time.Hour).Format(http.TimeFormat)
	before := lastModified.Add(-time.Hour).Format(http.TimeFormat)
	cases := []struct {
		name, path string
		headers    []string
		status     int
		etag       string
	}{
		{"no condition", "/orders/1", nil, 200, orderTag},
		{"matching tag", "/orders/1", []string{"If-None-Match", orderTag}, 304, orderTag},
		{"weak form of the tag (weak comparison)", "/orders/1", []string{"If-None-Match", "W/" + orderTag}, 304, orderTag},
		{"in a list", "/orders/1", []string{"If-None-Match", `"zzz", ` + orderTag}, 304, orderTag},
		{"star", "/orders/1", []string{"If-None-Match", "*"}, 304, orderTag},
		{"another tag", "/orders/1", []string{"If-None-Match", `"zzz"`}, 200, orderTag},
		{"not found is not tagged", "/orders/9", []string{"If-None-Match", "*"}, 404, ""},
		{"the handler's own weak tag", "/dated", []string{"If-None-Match", `"v7"`}, 304, `W/"v7"`},
		{"not modified since", "/dated", []string{"If-Modified-Since", after}, 304, `W/"v7"`},
		{"modified since", "/dated", []string{"If-Modified-Since", before}, 200, `W/"v7"`},
		{"If-None-Match wins over If-Modified-Since", "/dated", []string{"If-None-Match", `"x"`, "If-Modified-Since", after}, 200, `W/"v7"`},
	}
	for _, c := range cases {
		resp := behindtest.Do(t, srv, "GET", c.path, behindtest.Alice, "", c.headers...)
		body := behindtest.Body(t, resp)
		if resp.StatusCode != c.status || resp.Header.Get("ETag") != c.etag {
			t.Errorf("%s: %d ETag %q, want %d %q", c.name, resp.StatusCode, resp.Header.Get("ETag"), c.status, c.etag)
			continue
		}
		if c.status == 304 {
			if body != "" || resp.Header.Get("Content-Type") != "" {
				t.Errorf("%s: 304 with a body or Content-Type: %q %v", c.name, body, resp.Header)
			}
			if c.path == "/orders/1" && resp.Header.Get("Cache-Control") != "max-age=60" {
				t.Errorf("%s: 304 lost Cache-Control", c.name)
			}
		}
	}
}

func TestWritesCheckTheirPrecondition(t *testing.T) {
	a := &app{}
	srv := behindtest.Stack(t, a.router())
	before := lastModified.Add(-time.Hour).Format(http.TimeFormat)
	after := lastModified.Add(time.Hour).Format(http.TimeFormat)
	cases := []struct {
		name, method string
		headers      []string
		status       int
		anchor       string
	}{
		{"current tag", "PUT", []string{"If-Match", orderTag}, 204, ""},
		{"star on an existing resource", "PUT", []string{"If-Match", "*"}, 204, ""},
		{"stale tag", "PUT", []string{"If-Match", `"old"`}, 412, "precondition-failed"},
		{"weak tag (strong comparison)", "PUT", []string{"If-Match", "W/" + orderTag}, 412, "precondition-failed"},
		{"no precondition where one is required", "PUT", nil, 428, "precondition-required"},
		{"unmodified since", "PUT", []string{"If-Unmodified-Since", after}, 204, ""},
		{"modified since", "PUT", []string{"If-Unmodified-Since", before}, 412, "precondition-failed"},
		{"no precondition where it is optional", "PATCH", nil, 204, ""},
		{"stale on the optional route", "PATCH", []string{"If-Match", `"old"`}, 412, "precondition-failed"},
	}
	for _, c := range cases {
		resp := behindtest.Do(t, srv, c.method, "/orders/1", behindtest.Alice, "{}", c.headers...)
		if c.anchor != "" {
			behindtest.Problem(t, resp, c.status, c.anchor)
			continue
		}
		if _ = behindtest.Body(t, resp); resp.StatusCode != c.status {
			t.Errorf("%s: %d, want %d", c.name, resp.StatusCode, c.status)
		}
	}
	if n := a.writes.Load(); n != 4 {
		t.Fatalf("%d writes ran, want 4", n)
	}
}

func TestARefusedWriteNeverReadsTheResource(t *testing.T) {
	a := &app{}
	srv := behindtest.Stack(t, a.router())
	for token, anchor := range map[string]string{"": "authentication-required", "forged": "token-rejected"} {
		resp := behindtest.Do(t, srv, "PUT", "/orders/1", token, "{}", "If-Match", `"old"`)
		behindtest.Problem(t, resp, 401, anchor)
	}
	if a.reads.Load() != 0 || a.writes.Load() != 0 {
		t.Fatalf("refused writes read the resource %d times, wrote %d", a.reads.Load(), a.writes.Load())
	}
}

func TestServeMuxAndExclude(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("GET /a", conditional.ETags()(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("a")) })))
	mux.Handle("GET /skip/a", conditional.ETags()(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("a")) })))
	c, err := conditional.New(conditional.Exclude("/skip/*"))
	if err != nil {
		t.Fatal(err)
	}
	srv := behindtest.Stack(t, mux, c.Middleware)
	tag := conditional.ETagOf([]byte("a"))
	if resp := behindtest.Do(t, srv, "GET", "/a", behindtest.Alice, "", "If-None-Match", tag); resp.StatusCode != 304 {
		t.Fatalf("/a: %d", resp.StatusCode)
	}
	resp := behindtest.Do(t, srv, "GET", "/skip/a", behindtest.Alice, "", "If-None-Match", tag)
	if resp.StatusCode != 200 || resp.Header.Get("ETag") != "" {
		t.Fatalf("excluded: %d %v", resp.StatusCode, resp.Header)
	}
}

func TestLargeBodiesStreamWithoutAnETag(t *testing.T) {
	r := chi.NewRouter()
	r.With(conditional.ETags()).Get("/big", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(make([]byte, 10))
		_, _ = w.Write(make([]byte, 10))
	})
	c, err := conditional.New(conditional.MaxBodySize(15))
	if err != nil {
		t.Fatal(err)
	}
	srv := behindtest.Stack(t, r, c.Middleware)
	resp := behindtest.Do(t, srv, "GET", "/big", behindtest.Alice, "")
	if body := behindtest.Body(t, resp); resp.StatusCode != 200 || len(body) != 20 || resp.Header.Get("ETag") != "" {
		t.Fatalf("%d %d bytes %v", resp.StatusCode, len(body), resp.Header)
	}
}
