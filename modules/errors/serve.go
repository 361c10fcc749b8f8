package svcerrors

import (
	"context"
	"errors"
	"net/http"

	"go.uber.org/zap"

	"github.com/svckit/svc/modules/requestid"
)

type ctxKey struct{}

// withResponses returns a context carrying the registered format. The
// [Responses.Middleware] does this for every request.
func withResponses(ctx context.Context, r *Responses) context.Context {
	return context.WithValue(ctx, ctxKey{}, r)
}

// FromContext returns the format registered for the request; registered is
// false when there is none, and the format is then the RFC 9457 one with
// its defaults (what [New] returns), never nil.
func FromContext(ctx context.Context) (res *Responses, registered bool) {
	if r, ok := ctx.Value(ctxKey{}).(*Responses); ok {
		return r, true
	}
	return fallback, false
}

// registered is an app's own handler for one error type.
type registered func(w http.ResponseWriter, r *http.Request, err error) bool

// On registers fn as the app's own answer to errors of type T (found with
// errors.As). It wins over the format's rendering, whether registered before
// or after the app was wired: the lookup happens per error. Later
// registrations are consulted first.
func On[T error](res *Responses, fn func(w http.ResponseWriter, r *http.Request, err T)) {
	h := func(w http.ResponseWriter, r *http.Request, err error) bool {
		var target T
		if !errors.As(err, &target) {
			return false
		}
		fn(w, r, target)
		return true
	}
	res.mu.Lock()
	res.handlers = append([]registered{h}, res.handlers...)
	res.mu.Unlock()
}

func (r *Responses) appHandled(w http.ResponseWriter, req *http.Request, err error) bool {
	r.mu.RLock()
	hs := r.handlers
	r.mu.RUnlock()
	for _, h := range hs {
		if h(w, req, err) {
			return true
		}
	}
	return false
}

// ServeError answers err: the app's own handler for its type when one was
// registered with [On], else the format's rendering. An error the format does
// not know is logged (never sent) and answers a 500 whose body says nothing
// of it.
//
// Use it in an adapter that holds a *Responses and writes somewhere other
// than the request's connection (authnhuma writes into Huma's context);
// elsewhere use [Handler] or [Refuse], which take the request's format and,
// for Refuse, take care of a body not yet read.
func (r *Responses) ServeError(w http.ResponseWriter, req *http.Request, err error) {
	if r.appHandled(w, req, err) {
		return
	}
	// instance is a URI reference (RFC 9457 §3.1.5): the path as sent,
	// not decoded, where "%3F" would turn into a query.
	out := r.Render(err, req.URL.EscapedPath())
	if !out.Known {
		r.log().Error("svc: unhandled handler error",
			zap.String("http.request.method", req.Method),
			zap.String("url.path", req.URL.Path),
			requestIDField(req),
			zap.Error(err))
	}
	out.Write(w)
}

// Refuse answers err in the format registered for req (RFC 9457 when none
// is), for a request turned away before its handler read the body: the
// authentication gate's refusals and those of the components behind it.
//
// Under HTTP/1, a body that has already arrived whole is read and the
// connection kept, so a request pipelined behind the refused one is
// served. A body still arriving is not waited for: the answer carries
// Connection: close and the connection closes once it is written, where
// net/http would read up to 256 KiB of the body first, as slowly as a
// client trickles it, up to the server's read timeout. Under HTTP/2
// nothing is added: a refused stream ends alone.
//
// Use it where the error cannot be returned: in a middleware, a gate or a
// plain http.HandlerFunc, above all before the body is read; a handler
// that can return its error is wrapped in [Handler] instead.
func Refuse(w http.ResponseWriter, req *http.Request, err error) {
	closing := req.ProtoMajor == 1 && req.ContentLength != 0 && req.Body != nil && req.Body != http.NoBody &&
		!bodyArrived(w, req)
	if closing {
		w.Header().Set("Connection", "close")
	}
	res, _ := FromContext(req.Context())
	res.ServeError(w, req, err)
	if closing {
		closeAfterAnswer(w)
	}
}

func (r *Responses) log() *zap.Logger {
	if r.logger != nil {
		return r.logger
	}
	return zap.L()
}

// Handler adapts a handler that returns an error. A returned error is
// answered by the format registered for the request ([Responses.ServeError]).
// Without a registered format the app's own handling applies: the error is
// logged and answers a plain 500, as an unhandled error would.
//
// Use it for the app's handlers: returning the error is the one way a
// handler hands it to the format; code that cannot return one (a
// middleware) calls [Refuse].
func Handler(fn func(http.ResponseWriter, *http.Request) error) http.Handler {
	return errorHandler(fn)
}

// errorHandler is a handler that returns an error; see [Handler].
type errorHandler func(http.ResponseWriter, *http.Request) error

func (fn errorHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	err := fn(w, r)
	if err == nil {
		return
	}
	if res, ok := FromContext(r.Context()); ok {
		res.ServeError(w, r, err)
		return
	}
	zap.L().Error("svc: unhandled handler error",
		zap.String("http.request.method", r.Method),
		zap.String("url.path", r.URL.Path),
		requestIDField(r),
		zap.Error(err))
	http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
}

// Respond answers with status and a service-written detail in the format
// registered for the request (RFC 9457 when none is registered). The type
// is about:blank; extensions become top-level members (RFC 9457 only) in key
// order.
//
// Use it when there is no error value to answer, only a status and the
// service's own words (a probe's 405, a 502 for an upstream that could not
// be reached), and inside an [On] handler: it never consults the On
// handlers, where answering an error of the handled type would call the
// handler again.
func Respond(w http.ResponseWriter, r *http.Request, status int, detail string, extensions map[string]any) {
	res, _ := FromContext(r.Context())
	d := Description{Kind: frameworkKind(status), Detail: detail}
	if len(extensions) > 0 {
		d.Extensions = sortedMembers(extensions)
	}
	res.renderDescription(d, r.URL.EscapedPath()).Write(w)
}

// requestIDField is the request's ID for a log line, nothing when it has
// none (no telemetry wrapper gave one).
func requestIDField(r *http.Request) zap.Field {
	if id := requestid.From(r.Context()); id != "" {
		return zap.String(requestid.LogField, id)
	}
	return zap.Skip()
}
