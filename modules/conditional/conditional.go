// Package conditional answers conditional requests (RFC 9110 §13). It runs
// behind the authentication gate, around the route's handler.
//
//	r.With(conditional.ETags()).Get("/orders/{id}", getOrder)          // 304 on a match
//	r.With(conditional.Require(currentOrder)).Put("/orders/{id}", put) // 412 / 428
//
// [ETags] gives a GET or HEAD 200 a strong ETag computed from its body
// (unless the handler set one) and answers If-None-Match (weak comparison)
// or, without it, If-Modified-Since against the handler's Last-Modified
// with 304 Not Modified. [Match] and [Require] check a write's If-Match
// (strong comparison) or If-Unmodified-Since, then If-None-Match, against
// the resource's current validators, which the app's function reads:
// stale answers 412 precondition-failed; on [Require] a write with none of
// If-Match, If-Unmodified-Since or "If-None-Match: *" answers 428
// precondition-required (RFC 6585). Refusals use the app's registered
// error format.
package conditional

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"

	"github.com/svckit/svc/internal/behind"
)

// defaultMaxBodySize bounds the body buffered to compute an ETag.
const defaultMaxBodySize = 1 << 20

// Component is the conditional-request component: which paths it applies
// to and how much body it buffers to compute an ETag. The markers find it
// in the request context, where [Component.Middleware] puts it; without
// one they use the defaults.
type Component struct {
	paths   behind.Paths
	maxBody int
}

type config struct {
	include, exclude []string
	maxBody          int
}

// Option configures [New].
type Option func(*config)

// Include limits the component to these paths from the app's root (exact,
// or a prefix ending in /*), also under a mount. Default: every path.
func Include(patterns ...string) Option {
	return func(c *config) { c.include = append(c.include, patterns...) }
}

// Exclude exempts these paths from the app's root.
func Exclude(patterns ...string) Option {
	return func(c *config) { c.exclude = append(c.exclude, patterns...) }
}

// MaxBodySize bounds the response body buffered to compute an ETag
// (default 1 MiB); a larger body streams through without one.
func MaxBodySize(bytes int) Option { return func(c *config) { c.maxBody = bytes } }

// New builds the component. It refuses Include/Exclude patterns that are
// not paths and a MaxBodySize below 1 (when set).
func New(opts ...Option) (*Component, error) {
	c := config{maxBody: defaultMaxBodySize}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.maxBody < 1 {
		return nil, errorf("conditional.MaxBodySize(%d): must be at least 1 byte", c.maxBody)
	}
	paths, err := behind.NewPaths("conditional", c.include, c.exclude)
	if err != nil {
		return nil, err
	}
	return &Component{paths: paths, maxBody: c.maxBody}, nil
}

// Middleware makes c the component of the routes behind it; the routes'
// markers act at dispatch, after the gate admitted the request.
func (c *Component) Middleware(next http.Handler) http.Handler { return slot.Middleware(c, next) }

// slot carries the component of a route to its markers; a route with no
// middleware in front gets the defaults.
var slot = behind.NewSlot(func() (*Component, error) { return New() })

func componentFor(r *http.Request) *Component { return slot.For(r) }

// ETagOf is the strong entity tag [ETags] gives body: a quoted, truncated
// SHA-256. The function given to [Match] computes the current tag of a resource with it
// from the same representation a GET would send.
func ETagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}
