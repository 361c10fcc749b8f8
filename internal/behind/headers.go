package behind

import (
	"net/http"
	"slices"
)

// StoredHeader is a copy of a handler's response header fit to answer a
// later request with (an idempotent replay, a cache hit). What outer
// middlewares set for this request alone (its request ID, CORS headers)
// and the handler left as it was goes, as does an outer rate limiter's
// state, which is about this moment: the later request carries its own.
// outer is the header as it stood before the handler ran; the headers
// named in keep stay even when the handler left them unchanged.
func StoredHeader(got, outer http.Header, keep ...string) http.Header {
	h := got.Clone()
	for k, vs := range outer {
		if !slices.Contains(keep, k) && slices.Equal(h[k], vs) {
			delete(h, k)
		}
	}
	delete(h, "Ratelimit")
	delete(h, "Ratelimit-Policy")
	return h
}
