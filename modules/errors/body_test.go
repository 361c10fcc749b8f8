package svcerrors_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// The body the format writes is never encoded, so a Content-Encoding that a
// compressing middleware (or the handler) set for the body it replaced must
// go: a client that asked for gzip would otherwise fail to decode the error.
func TestReplacedBodyDropsItsContentEncoding(t *testing.T) {
	res := svcerrors.New()
	r := chi.NewRouter()
	r.Use(res.Middleware)
	r.Use(middleware.Compress(5))
	r.Get("/plain", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "nope", http.StatusNotFound) })
	r.Method("GET", "/returned", svcerrors.Handler(func(w http.ResponseWriter, _ *http.Request) error {
		w.Header().Set("Content-Encoding", "gzip")
		return &svcerrors.BulkheadFull{}
	}))
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		path   string
		status int
	}{{"/plain", http.StatusNotFound}, {"/returned", http.StatusServiceUnavailable}} {
		t.Run(tc.path, func(t *testing.T) {
			req, _ := http.NewRequest("GET", srv.URL+tc.path, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			// The bare transport does not decode: the test sees the bytes sent.
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if enc := resp.Header.Get("Content-Encoding"); enc != "" {
				t.Fatalf("Content-Encoding %q on the body %s", enc, body)
			}
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil || resp.StatusCode != tc.status || m["status"] != float64(tc.status) {
				t.Fatalf("%d %s (%v)", resp.StatusCode, body, err)
			}
			checkHeaders(t, resp.Header, svcerrors.ProblemMediaType, "")
		})
	}
}

// RFC 9457 §3.1.5: instance is a URI reference. The request path goes out
// as it was sent (escaped): decoded, "/a%3Fb" would name the resource "/a"
// with the query "b", and a space is not allowed in a URI at all.
func TestInstanceIsTheEscapedRequestPath(t *testing.T) {
	const path = "/orders/a%3Fb%20c%2Fd"
	res := svcerrors.New()
	r := chi.NewRouter()
	r.Use(res.Middleware)
	r.Get("/orders/{id}", svcerrors.Handler(func(http.ResponseWriter, *http.Request) error {
		return &svcerrors.BulkheadFull{}
	}).ServeHTTP)
	r.Get("/respond/{id}", func(w http.ResponseWriter, r *http.Request) {
		svcerrors.Respond(w, r, http.StatusConflict, "Conflict.", nil)
	})
	r.Get("/plain/{id}", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "nope", http.StatusNotFound) })
	for _, p := range []string{path, "/respond/a%3Fb%20c%2Fd", "/plain/a%3Fb%20c%2Fd", "/nowhere/a%3Fb%20c"} {
		t.Run(p, func(t *testing.T) {
			resp, body := get(t, r, "GET", p)
			var m map[string]any
			if err := json.Unmarshal([]byte(body), &m); err != nil {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			if m["instance"] != p {
				t.Fatalf("instance = %v, want %s", m["instance"], p)
			}
		})
	}
}
