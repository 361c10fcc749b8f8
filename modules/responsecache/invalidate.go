package responsecache

import (
	"context"
	"net/http"

	"github.com/svckit/svc/internal/behind"
	"github.com/svckit/svc/modules/store"
)

// invalidate runs a write (any method but GET, HEAD, OPTIONS and TRACE)
// and, when it succeeded (a status below 400), drops the cached GET
// response of its URI, which HEADs are answered from too: RFC 9111 §4.4
// makes a cache forget what a write may have changed. Only writes that pass through a marker can do
// so: put Cached or Shared where the resource's writes are routed too.
func (c *Component) invalidate(w http.ResponseWriter, r *http.Request, next http.Handler, uri string) {
	// A recorder that keeps no body (Max 0): only the status matters.
	rec := &behind.Recorder{ResponseWriter: w, Status: http.StatusOK}
	next.ServeHTTP(rec, r)
	if !rec.Wrote || rec.Status >= http.StatusBadRequest {
		return
	}
	// The request may be gone (the client left); the write happened.
	ctx := context.WithoutCancel(r.Context())
	_ = c.cache.Delete(ctx, store.Key{Space: space, ID: http.MethodGet + " " + uri})
}
