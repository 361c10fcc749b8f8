package authnhuma

import (
	"context"
	"crypto/tls"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/svckit/svc/internal/behind"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// probe is what markers are applied to when their refusals are read.
var probe = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})

// Use is a Huma operation option that runs the given net/http markers
// around the operation, in order (the first is outermost), declares their
// refusals in the API document and their notes for `check`:
//
//	huma.Post(api, "/orders", create, authnhuma.Use(ratelimit.Limit("10/s", 20)))
//
// The markers run only for a caller the operation's guard admits, whatever
// the order of the options: a caller refused 401 or 403 spends no budget,
// claims no Idempotency-Key and is never answered from the cache.
//
// Use refuses, with a panic at registration, to be a group's modifier
// (grp.UseSimpleModifier(authnhuma.Use(...))): Huma v2.37 does not run
// the middlewares a group's modifier adds (huma#804), so the markers would
// be documented and listed by `check` but never run. Use [Group] for a
// group. The refusal reads the registration's call stack for Huma's group
// code, the one place where the two uses differ.
func Use(markers ...func(http.Handler) http.Handler) func(*huma.Operation) {
	markers = present(markers)
	describe := markerDocs(markers)
	return func(op *huma.Operation) {
		if inGroupModifier() {
			panic("authnhuma.Use is an operation option: as a huma.Group's modifier its markers would never run " +
				"(Huma does not run middlewares a group's modifier adds, huma#804); use authnhuma.Group(grp, markers...)")
		}
		for _, m := range markers {
			op.Middlewares = append(op.Middlewares, bridge(m))
		}
		describe(op)
	}
}

// markerDocs returns the modifier that declares the markers' refusals,
// parameters, headers and answers in the API document and their notes for
// `check`, and runs nothing. A marker that does nothing for the
// operation's method (a write marker on a GET) declares nothing there.
func markerDocs(markers []func(http.Handler) http.Handler) func(*huma.Operation) {
	applied := make([]http.Handler, len(markers))
	for i, m := range markers {
		applied[i] = m(probe)
	}
	note := notes(markers...)
	return func(op *huma.Operation) {
		var rejects []svcerrors.Rejection
		var docs []markerDoc
		for _, marker := range applied {
			var md markerDoc
			if d, ok := marker.(behind.Documented); ok {
				if md.doc = d.APIDoc(op.Method); md.doc.IsZero() {
					continue
				}
			}
			if r, ok := marker.(behind.Refuser); ok {
				for _, rej := range r.Refusals() {
					rejects = append(rejects, rej)
					md.refusals = append(md.refusals, rej.Describe().Status)
				}
			}
			docs = append(docs, md)
		}
		if len(rejects) > 0 {
			Rejects(rejects...)(op)
		}
		if len(docs) > 0 {
			update(op, func(gd *opGuard) { gd.docs = append(gd.docs, docs...) }, false)
		}
		note(op)
	}
}

// markerDoc is what one marker adds to an operation's document.
type markerDoc struct {
	doc      behind.APIDoc
	refusals []int // the statuses of the marker's refusals
}

func present(markers []func(http.Handler) http.Handler) []func(http.Handler) http.Handler {
	return slices.DeleteFunc(slices.Clone(markers), func(m func(http.Handler) http.Handler) bool { return m == nil })
}

// bridge runs a net/http middleware as a Huma middleware: the operation
// writes through the middleware's response writer, so that a marker that
// keeps or replaces the response (a cache, a replay) sees it. It first
// lets the operation's guard refuse a caller it does not admit (on a bare
// adapter a group's middlewares, and an operation's Use given before its
// Require, run before the guard's middleware), so that the marker never
// acts for a caller the operation refuses.
func bridge(mw func(http.Handler) http.Handler) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		if !Admit(ctx) {
			return
		}
		r, w, ok := humaRequest(ctx)
		if !ok {
			// Not a humachi or humago context: the marker cannot see the
			// request, so run the operation as declared without it.
			next(ctx)
			return
		}
		mw(http.HandlerFunc(func(w2 http.ResponseWriter, r2 *http.Request) {
			next(&bridged{hc: ctx, w: w2, r: r2})
		})).ServeHTTP(w, r)
	}
}

func humaRequest(ctx huma.Context) (r *http.Request, w http.ResponseWriter, ok bool) {
	// An outer marker's writer comes first: the adapters' Unwrap would
	// skip it.
	for c := ctx; c != nil; {
		if b, isBridged := c.(*bridged); isBridged {
			return b.r.WithContext(ctx.Context()), b.w, true
		}
		u, more := c.(interface{ Unwrap() huma.Context })
		if !more {
			break
		}
		c = u.Unwrap()
	}
	try := func(f func(huma.Context) (*http.Request, http.ResponseWriter)) (ok bool) {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		r, w = f(ctx)
		return true
	}
	if try(humachi.Unwrap) || try(humago.Unwrap) {
		return r, w, true
	}
	return nil, nil, false
}

// bridged is the operation's context with the middleware's request and
// writer; everything else is read from the adapter's context.
type bridged struct {
	hc     huma.Context
	w      http.ResponseWriter
	r      *http.Request
	status int
}

func (c *bridged) Operation() *huma.Operation                 { return c.hc.Operation() }
func (c *bridged) Context() context.Context                   { return c.r.Context() }
func (c *bridged) TLS() *tls.ConnectionState                  { return c.hc.TLS() }
func (c *bridged) Version() huma.ProtoVersion                 { return c.hc.Version() }
func (c *bridged) Method() string                             { return c.hc.Method() }
func (c *bridged) Host() string                               { return c.hc.Host() }
func (c *bridged) RemoteAddr() string                         { return c.hc.RemoteAddr() }
func (c *bridged) URL() url.URL                               { return c.hc.URL() }
func (c *bridged) Param(name string) string                   { return c.hc.Param(name) }
func (c *bridged) Query(name string) string                   { return c.hc.Query(name) }
func (c *bridged) Header(name string) string                  { return c.hc.Header(name) }
func (c *bridged) EachHeader(cb func(name, value string))     { c.hc.EachHeader(cb) }
func (c *bridged) BodyReader() io.Reader                      { return c.r.Body }
func (c *bridged) GetMultipartForm() (*multipart.Form, error) { return c.multipartForm() }
func (c *bridged) SetReadDeadline(t time.Time) error          { return c.hc.SetReadDeadline(t) }
func (c *bridged) Status() int                                { return c.status }
func (c *bridged) BodyWriter() io.Writer                      { return c.w }
func (c *bridged) SetHeader(name, value string)               { c.w.Header().Set(name, value) }
func (c *bridged) AppendHeader(name, value string)            { c.w.Header().Add(name, value) }

func (c *bridged) SetStatus(code int) {
	c.status = code
	c.w.WriteHeader(code)
}

// multipartForm parses the request the markers pass on, as the adapters
// parse theirs: a marker that read the body (idempotency fingerprints it)
// put a fresh one there, and the adapter's request may hold only the spent
// one.
func (c *bridged) multipartForm() (*multipart.Form, error) {
	err := c.r.ParseMultipartForm(multipartMaxMemory(c.hc))
	return c.r.MultipartForm, err
}

// multipartMaxMemory is the adapter's MultipartMaxMemory setting.
func multipartMaxMemory(ctx huma.Context) (n int64) {
	n = humago.MultipartMaxMemory
	defer func() { _ = recover() }() // not a humachi context
	humachi.Unwrap(ctx)
	return humachi.MultipartMaxMemory
}

// Unwrap lets humachi.Unwrap and humago.Unwrap reach the adapter's
// context.
func (c *bridged) Unwrap() huma.Context { return c.hc }
