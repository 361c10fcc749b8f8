package responsecache

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/svckit/svc/internal/behind"
	"github.com/svckit/svc/modules/store"
)

// Cached is a marker middleware: GET responses of the routes it guards
// are cached for anonymous callers, and answer HEAD requests too (headers
// and Age, no body); a HEAD that finds nothing stored runs the handler and
// stores nothing. An authenticated request runs
// the handler and is never stored (use [Shared] when the response is the
// same for every caller). Use it with chi's r.With, r.Use and r.Group,
// wrap a ServeMux handler in it, or pass it to authnhuma.Use on a Huma
// operation (authnhuma.Group on a Huma group).
func Cached() func(http.Handler) http.Handler {
	return behind.MarkerOf("responsecache.Cached", "cache=anonymous", func(b behind.Marker) *marker {
		return &marker{Marker: b}
	})
}

// Shared is [Cached] for a response that is the same for every caller:
// authenticated requests are answered from, and stored in, the one cache
// too. The gate still authenticates each request first.
func Shared() func(http.Handler) http.Handler {
	return behind.MarkerOf("responsecache.Shared", "cache=shared", func(b behind.Marker) *marker {
		return &marker{Marker: b, shared: true}
	})
}

type marker struct {
	behind.Marker
	shared bool
}

// APIDoc tells API documents the Age a GET answered from the cache
// carries.
func (m *marker) APIDoc(method string) behind.APIDoc {
	if method != http.MethodGet && method != http.MethodHead {
		return behind.APIDoc{}
	}
	return behind.APIDoc{
		Headers: []behind.Header{{Name: "Age", Description: "Seconds the answer has been in the cache; absent on an answer the handler wrote.", Integer: true}},
		// A hit answers the client's validators itself.
		Answers: []behind.Answer{{Status: http.StatusNotModified, Description: "Not Modified: the cached representation matches If-None-Match; no body."}},
	}
}

// space is the store space of cached responses.
const space = "responsecache"

func (m *marker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := componentFor(r)
	read := r.Method == http.MethodGet || r.Method == http.MethodHead
	if !c.paths.Applies(r) || behind.Unrouted(r) || r.Method == http.MethodOptions || r.Method == http.MethodTrace {
		m.Next.ServeHTTP(w, r)
		return
	}
	if !read {
		c.invalidate(w, r, m.Next, targetURI(r))
		return
	}
	if (!m.shared && credentialed(r)) || bypass(r.Header) {
		m.Next.ServeHTTP(w, r)
		return
	}
	primary := http.MethodGet + " " + targetURI(r)
	if c.serveStored(w, r, primary) {
		return
	}
	if r.Method == http.MethodHead {
		// A HEAD is answered from a stored GET (RFC 9111 §4: the stored
		// response's method allows it) but never stores: its handler may
		// write no body, which a GET would then be served.
		m.Next.ServeHTTP(w, r)
		return
	}
	f, leader := c.flights.join(primary)
	if !leader {
		// Another request runs the handler for this key: wait for it, then
		// serve what it stored; when it stored nothing, run our own.
		select {
		case <-f.done:
		case <-r.Context().Done():
			return
		}
		if c.serveStored(w, r, primary) {
			return
		}
		m.Next.ServeHTTP(w, r)
		return
	}
	defer c.flights.leave(primary, f)
	// A flight that ended between our lookup and our join may have stored
	// the response already.
	if c.serveStored(w, r, primary) {
		return
	}
	c.runAndStore(w, r, m.Next, primary)
}

// targetURI is the request's URI in a cache key. RFC 9111 §2: the key is
// the method and the target URI, whose host tells apart the tenants of a
// virtual-hosted app. A Host holds no space, so no two requests meet
// under one key.
func targetURI(r *http.Request) string {
	return r.Host + " " + behind.Root(r) + "?" + r.URL.RawQuery
}

// credentialed tells a request a [Cached] route never answers from, or
// stores in, the cache: a verified caller, or one whose Authorization the
// gate did not read (an excluded path, an app without the gate), whom the
// handler may have answered for its credentials (RFC 9111 §3.5).
func credentialed(r *http.Request) bool {
	return behind.Authenticated(r) || len(r.Header["Authorization"]) > 0
}

// bypass: a client asking for a fresh response (no-cache, no-store or
// max-age=0) skips the lookup; RFC 9111 §5.2.1.
func bypass(h http.Header) bool {
	cc := h.Get("Cache-Control")
	if cc == "" {
		return false
	}
	d := parseCacheControl(cc)
	return d.noCache || d.noStore || (d.maxAgeSet && d.maxAge == 0)
}

// serveStored answers from the cache when a fresh entry matches the
// request, including the request headers its Vary names.
func (c *Component) serveStored(w http.ResponseWriter, r *http.Request, primary string) bool {
	e, ok, err := c.cache.Get(r.Context(), store.Key{Space: space, ID: primary})
	if err != nil || !ok {
		return false
	}
	if !varyMatches(e.Response.Header, r.Header, e.Response.Header[varyValuesHeader]) {
		return false
	}
	h := w.Header()
	for k, vs := range e.Response.Header {
		if k != varyValuesHeader {
			// Copied: the stored slices are shared with every hit.
			h[k] = append([]string(nil), vs...)
		}
	}
	age := max(0, int64(c.now().Sub(e.Stored)/time.Second))
	h.Set("Age", strconv.FormatInt(age, 10))
	if e.Response.Status == http.StatusOK && behind.NotModified(r, h.Get("ETag"), h.Get("Last-Modified")) {
		// A cache answers the client's validators itself (RFC 9111
		// §4.3.2): the handler, and any conditional marker inside, does
		// not run on a hit.
		h.Del("Content-Type")
		h.Del("Content-Length")
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	w.WriteHeader(e.Response.Status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(e.Response.Body)
	}
	return true
}

// varyValuesHeader carries, inside a stored entry only, the request's
// values of the headers Vary names, to match later requests against.
const varyValuesHeader = "X-Svc-Vary-Values"

func varyMatches(stored http.Header, req http.Header, values []string) bool {
	names := varyNames(stored)
	if len(names) != len(values) {
		return false
	}
	for i, name := range names {
		if strings.Join(req.Values(name), ",") != values[i] {
			return false
		}
	}
	return true
}

func varyNames(h http.Header) []string {
	var names []string
	for _, line := range h.Values("Vary") {
		for _, n := range strings.Split(line, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
	}
	return names
}

// runAndStore runs the handler, passing its response through, and stores
// it when it is cacheable.
func (c *Component) runAndStore(w http.ResponseWriter, r *http.Request, next http.Handler, primary string) {
	rec := &behind.Recorder{ResponseWriter: w, Status: http.StatusOK, Max: c.maxBody, FlushOverflows: true}
	// What outer middlewares set for this request (its request ID, CORS
	// headers) is not the route's response: a hit keeps the hit's own.
	outer := w.Header().Clone()
	next.ServeHTTP(rec, r)
	if rec.Overflow || rec.Status != http.StatusOK || r.Context().Err() != nil {
		return
	}
	header := w.Header()
	ttl, ok := freshness(header)
	if !ok {
		return
	}
	names := varyNames(header)
	stored := behind.StoredHeader(header, outer, "Vary")
	delete(stored, "Age")
	values := make([]string, len(names))
	for i, n := range names {
		if n == "*" {
			return
		}
		values[i] = strings.Join(r.Header.Values(n), ",")
	}
	if len(values) > 0 {
		stored[varyValuesHeader] = values
	}
	e := store.Entry{Response: store.Response{Status: rec.Status, Header: stored, Body: rec.Body.Bytes()}, Stored: c.now()}
	_ = c.cache.Set(r.Context(), store.Key{Space: space, ID: primary}, e, ttl)
}

// freshness is how long a response may be stored by a shared cache: its
// s-maxage, else its max-age; never for private, no-store, no-cache or a
// response that sets a cookie.
func freshness(h http.Header) (time.Duration, bool) {
	if len(h.Values("Set-Cookie")) > 0 {
		return 0, false
	}
	d := parseCacheControl(strings.Join(h.Values("Cache-Control"), ","))
	if d.private || d.noStore || d.noCache {
		return 0, false
	}
	secs := d.maxAge
	if d.sMaxAgeSet {
		secs = d.sMaxAge
	} else if !d.maxAgeSet {
		return 0, false
	}
	if secs <= 0 {
		return 0, false
	}
	return time.Duration(secs) * time.Second, true
}

type directives struct {
	private, noStore, noCache bool
	maxAge, sMaxAge           int64
	maxAgeSet, sMaxAgeSet     bool
}

func parseCacheControl(v string) directives {
	var d directives
	for _, part := range strings.Split(v, ",") {
		name, arg, _ := strings.Cut(strings.TrimSpace(part), "=")
		arg = strings.Trim(arg, `"`)
		switch strings.ToLower(name) {
		case "private":
			d.private = true
		case "no-store":
			d.noStore = true
		case "no-cache":
			d.noCache = true
		case "max-age":
			if n, err := strconv.ParseInt(arg, 10, 64); err == nil && n >= 0 {
				d.maxAge, d.maxAgeSet = n, true
			}
		case "s-maxage":
			if n, err := strconv.ParseInt(arg, 10, 64); err == nil && n >= 0 {
				d.sMaxAge, d.sMaxAgeSet = n, true
			}
		}
	}
	return d
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
