package responsecache

import (
	"context"
	"net/http"

	"github.com/svckit/svc/modules/store"
)

// invalidate runs a write (any method but GET, HEAD, OPTIONS and TRACE)
// and, when it succeeded (a status below 400), drops the cached GET and
// HEAD responses of its URI: RFC 9111 §4.4 makes a cache forget what a
// write may have changed. Only writes that pass through a marker can do
// so: put Cached or Shared where the resource's writes are routed too.
func (c *Component) invalidate(w http.ResponseWriter, r *http.Request, next http.Handler, target string) {
	sw := &statusWriter{ResponseWriter: w}
	next.ServeHTTP(sw, r)
	if sw.status == 0 || sw.status >= http.StatusBadRequest {
		return
	}
	// The request may be gone (the client left); the write happened.
	ctx := context.WithoutCancel(r.Context())
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		_ = c.cache.Delete(ctx, store.Key{Space: space, ID: method + " " + target})
	}
}

// statusWriter notes the final status a handler answers.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 && code >= http.StatusOK {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Flush keeps a streaming write streaming.
func (s *statusWriter) Flush() {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	_ = http.NewResponseController(s.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
