// Package responsecache keeps the responses of cacheable routes for a
// while (an RFC 9111 subset) and answers repeats from memory. It runs
// behind the authentication gate, around the route's handler: a refused
// request costs no lookup.
//
//	r.With(authn.Anonymous, responsecache.Cached()).Get("/catalog", catalog)
//	r.With(responsecache.Shared()).Get("/prices", prices) // same body for every caller
//
// A GET 200 is stored for the max-age (s-maxage first) of the handler's
// Cache-Control, keyed by host, path from the app's root, query and the
// request headers its Vary names, and answers the GETs and HEADs that
// match it (RFC 9111 §4); a HEAD never stores. A response marked private,
// no-store or no-cache, with Vary: * or Set-Cookie, or over MaxBodySize is
// never stored. A hit carries Age. Concurrent misses of one key run the
// handler once (single flight) when its response is cacheable.
//
// The cache never stores an authenticated request's response unless the
// route is marked [Shared]: a [Cached] route serves authenticated callers,
// and requests carrying an Authorization header the gate did not read,
// from their handler every time, and anonymous callers from the cache.
package responsecache

import (
	"net/http"
	"time"

	"github.com/svckit/svc/internal/behind"
	"github.com/svckit/svc/modules/store"
)

// defaultMaxBodySize bounds the body of a response that is stored.
const defaultMaxBodySize = 1 << 20

// Component is the response-cache component: where responses are kept and
// which paths it applies to. The markers find it in the request context,
// where [Component.Middleware] puts it; without one they use a
// process-wide in-memory cache with the defaults.
type Component struct {
	cache   store.Cache
	paths   behind.Paths
	maxBody int
	now     func() time.Time
	flights flights
}

type config struct {
	cache            store.Cache
	include, exclude []string
	maxBody          int
	now              func() time.Time
}

// Option configures [New].
type Option func(*config)

// Store sets where responses are kept (default: a new in-memory store,
// bounded in bytes; see store.MaxCacheSize).
func Store(s store.Cache) Option { return func(c *config) { c.cache = s } }

// Include limits the component to these paths from the app's root (exact,
// or a prefix ending in /*), also under a mount. Default: every path.
func Include(patterns ...string) Option {
	return func(c *config) { c.include = append(c.include, patterns...) }
}

// Exclude exempts these paths from the app's root from caching.
func Exclude(patterns ...string) Option {
	return func(c *config) { c.exclude = append(c.exclude, patterns...) }
}

// MaxBodySize bounds the body of a stored response (default
// 1 MiB); a larger one streams through and is not stored.
func MaxBodySize(bytes int) Option { return func(c *config) { c.maxBody = bytes } }

// Clock sets where the cache reads the time for Age (default time.Now).
// Give the store the same clock.
func Clock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// New builds the component. It refuses Include/Exclude patterns that are
// not paths and a MaxBodySize below 1 (when set).
func New(opts ...Option) (*Component, error) {
	c := config{maxBody: defaultMaxBodySize, now: time.Now}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.maxBody < 1 {
		return nil, errorf("responsecache.MaxBodySize(%d): must be at least 1 byte", c.maxBody)
	}
	paths, err := behind.NewPaths("responsecache", c.include, c.exclude)
	if err != nil {
		return nil, err
	}
	comp := &Component{cache: c.cache, paths: paths, maxBody: c.maxBody, now: c.now}
	if comp.cache == nil {
		comp.cache = store.NewMemory()
	}
	return comp, nil
}

// Middleware makes c the cache of the routes behind it; the routes'
// markers act at dispatch, after the gate admitted the request.
func (c *Component) Middleware(next http.Handler) http.Handler { return slot.Middleware(c, next) }

// slot carries the component of a route to its markers; a route with no
// middleware in front gets the defaults.
var slot = behind.NewSlot(func() (*Component, error) { return New() })

func componentFor(r *http.Request) *Component { return slot.For(r) }
