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

// RFC 9110 §13.1.2: If-None-Match on a write is evaluated before the
// method runs; "If-None-Match: *" is how a client creates a resource only
// if none exists, and it makes the request conditional (no 428).
func TestWritesEvaluateIfNoneMatch(t *testing.T) {
	var writes atomic.Int64
	existing := func(r *http.Request) (string, time.Time, error) {
		if chi.URLParam(r, "id") == "new" {
			return "", time.Time{}, nil
		}
		return orderTag, lastModified, nil
	}
	write := func(w http.ResponseWriter, _ *http.Request) {
		writes.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}
	r := chi.NewRouter()
	r.With(conditional.Require(existing)).Put("/orders/{id}", write)
	r.With(conditional.Match(existing)).Patch("/orders/{id}", write)
	srv := behindtest.Stack(t, r)
	cases := []struct {
		name, method, path string
		headers            []string
		status             int
		anchor             string
	}{
		{"create-only on an existing resource", "PUT", "/orders/1", []string{"If-None-Match", "*"}, 412, "precondition-failed"},
		{"create-only on a new resource", "PUT", "/orders/new", []string{"If-None-Match", "*"}, 204, ""},
		{"create-only on the optional route", "PATCH", "/orders/1", []string{"If-None-Match", "*"}, 412, "precondition-failed"},
		{"the current tag (weak comparison)", "PATCH", "/orders/1", []string{"If-None-Match", "W/" + orderTag}, 412, "precondition-failed"},
		{"another tag", "PATCH", "/orders/1", []string{"If-None-Match", `"old"`}, 204, ""},
		{"If-Match holds, If-None-Match fails", "PATCH", "/orders/1", []string{"If-Match", orderTag, "If-None-Match", orderTag}, 412, "precondition-failed"},
	}
	for _, c := range cases {
		resp := behindtest.Do(t, srv, c.method, c.path, behindtest.Alice, "{}", c.headers...)
		if c.anchor != "" {
			behindtest.Problem(t, resp, c.status, c.anchor)
			continue
		}
		if _ = behindtest.Body(t, resp); resp.StatusCode != c.status {
			t.Errorf("%s: %d, want %d", c.name, resp.StatusCode, c.status)
		}
	}
	if n := writes.Load(); n != 2 {
		t.Fatalf("%d writes ran, want 2", n)
	}
}

// Regression: issue 25 item 10.
// RFC 9110 §13.1.1: "If-Match: *" holds only for a resource that exists.
// A write with it to a resource whose current ETag is empty answers 412
// and never runs; to an existing one it runs.
func TestIfMatchAnyRefusesAMissingResource(t *testing.T) {
	var writes atomic.Int64
	current := func(r *http.Request) (string, time.Time, error) {
		if chi.URLParam(r, "id") == "missing" {
			return "", time.Time{}, nil
		}
		return orderTag, lastModified, nil
	}
	r := chi.NewRouter()
	write := func(w http.ResponseWriter, _ *http.Request) {
		writes.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}
	r.With(conditional.Match(current)).Put("/orders/{id}", write)
	r.With(conditional.Require(current)).Patch("/orders/{id}", write)
	srv := behindtest.Stack(t, r)
	for _, method := range []string{"PUT", "PATCH"} {
		behindtest.Problem(t, behindtest.Do(t, srv, method, "/orders/missing", behindtest.Alice, "{}", "If-Match", "*"), 412, "precondition-failed")
		if n := writes.Load(); n != 0 {
			t.Fatalf("%s: the handler ran %d times for a missing resource under If-Match: *", method, n)
		}
	}
	resp := behindtest.Do(t, srv, "PUT", "/orders/1", behindtest.Alice, "{}", "If-Match", "*")
	if _ = behindtest.Body(t, resp); resp.StatusCode != http.StatusNoContent || writes.Load() != 1 {
		t.Fatalf("existing resource: %d, %d writes; want 204 and one write", resp.StatusCode, writes.Load())
	}
}
