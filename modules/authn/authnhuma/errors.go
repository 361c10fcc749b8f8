package authnhuma

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/danielgtaylor/huma/v2"
	"go.uber.org/zap"

	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
)

// Huma builds every error it writes itself (validation, body, negotiation,
// a handler's error that is not a huma.StatusError) through the
// package-level huma.NewErrorWithContext: one hook per process (huma#352).
// Ours answers in the format registered for the request and hands every
// other request back to the hook it replaced, so an API without svcerrors'
// middleware keeps Huma's own errors, minus the leak of a handler error's
// message.
func init() {
	prev := huma.NewErrorWithContext
	huma.NewErrorWithContext = func(ctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
		if e := formatted(ctx, status, msg, errs); e != nil {
			return e
		}
		if unexpected(status, msg, errs) {
			// Huma would put err.Error() on the wire; log it instead.
			zap.L().Error("svc: unhandled handler error", zap.String("http.request.method", ctx.Method()),
				zap.String("url.path", ctx.URL().Path), zap.Error(errs[0]))
			return prev(ctx, status, msg)
		}
		return prev(ctx, status, msg, errs...)
	}
}

// huma's message for a handler error that is not a huma.StatusError.
const unexpectedMsg = "unexpected error occurred"

func unexpected(status int, msg string, errs []error) bool {
	return status == http.StatusInternalServerError && msg == unexpectedMsg && len(errs) == 1 && errs[0] != nil
}

// formatted renders an error Huma is about to write in the request's
// registered format; nil when none is registered and the error is not a
// refusal (refusals are always rendered, as the gate renders them).
func formatted(ctx huma.Context, status int, msg string, errs []error) huma.StatusError {
	err := pick(status, msg, errs)
	res, ok := svcerrors.FromContext(ctx.Context())
	if !ok {
		var ref *authn.Refusal
		if !errors.As(err, &ref) {
			return nil
		}
	}
	return serve(ctx, res, err)
}

// pick is the error to answer: a rejection (a refusal included) Huma was
// handed, else the handler's own error (a 500 that says nothing of it),
// else Huma's validation entries (a 400 or 422 with details), else a plain
// HTTP error of its status: type about:blank, the service's own detail.
func pick(status int, msg string, errs []error) error {
	for _, e := range errs {
		if e == nil {
			continue
		}
		if _, known := svcerrors.Describe(e); known {
			return e
		}
	}
	if unexpected(status, msg, errs) {
		return errs[0]
	}
	if status == http.StatusBadRequest || status == http.StatusUnprocessableEntity {
		if entries := fieldErrors(status, errs); len(entries) > 0 {
			return &svcerrors.ValidationFailed{Status: status, Errors: entries}
		}
		if msg == "request body is required" {
			return &svcerrors.ValidationFailed{Status: status, Errors: []svcerrors.FieldError{
				{Loc: []string{"body"}, Msg: "a request body is required", Type: "missing"}}}
		}
	}
	return &svcerrors.HTTPError{Status: status}
}

// serve renders err with the format's own ServeError (so an app's handler
// registered with svcerrors.On still wins, and an unknown error is logged
// by the format's logger), then hands Huma the bytes to write. Headers go
// on the response now: Huma writes the status right after.
func serve(ctx huma.Context, res *svcerrors.Responses, err error) huma.StatusError {
	r, _ := unwrap(ctx)
	rec := &capture{header: http.Header{}}
	res.ServeError(rec, r, err)
	for k, vs := range rec.header {
		if k == "Content-Type" || len(vs) == 0 {
			continue
		}
		ctx.SetHeader(k, vs[0])
		for _, v := range vs[1:] {
			ctx.AppendHeader(k, v)
		}
	}
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return &rendered{status: rec.status, body: rec.body.Bytes(), contentType: rec.header.Get("Content-Type")}
}

// rendered is an error answer already rendered in the registered format.
// Huma marshals it with its JSON format: MarshalJSON hands over the bytes.
type rendered struct {
	status      int
	body        []byte
	contentType string
}

func (e *rendered) Error() string  { return "svc: HTTP " + strconv.Itoa(e.status) }
func (e *rendered) GetStatus() int { return e.status }

// ContentType keeps the format's media type whatever Huma negotiated.
func (e *rendered) ContentType(string) string {
	if e.contentType == "" {
		return "application/json"
	}
	return e.contentType
}

func (e *rendered) MarshalJSON() ([]byte, error) {
	if json.Valid(e.body) {
		return e.body, nil
	}
	// An app's own handler (svcerrors.On) wrote something else.
	return json.Marshal(string(e.body))
}

// transformErrorModel rewrites the huma.ErrorModel a handler returned
// (huma.Error404NotFound(...) and friends, built without a request by
// huma.NewError) into the registered format. It runs first among the
// API's transformers, before Huma marshals the body.
func transformErrorModel(ctx huma.Context, _ string, v any) (any, error) {
	em, ok := v.(*huma.ErrorModel)
	if !ok || em == nil {
		return v, nil
	}
	res, registered := svcerrors.FromContext(ctx.Context())
	if !registered {
		return v, nil
	}
	status := em.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	errs := make([]error, 0, len(em.Errors))
	for _, d := range em.Errors {
		if d != nil {
			errs = append(errs, d)
		}
	}
	out := serve(ctx, res, pick(status, em.Detail, errs)).(*rendered)
	ctx.SetHeader("Content-Type", out.ContentType(""))
	return out, nil
}

// capture is the ResponseWriter the format renders into.
type capture struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *capture) Header() http.Header { return c.header }
func (c *capture) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}
func (c *capture) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.body.Write(b)
}

// unwrap returns the request and writer under a Huma context. The humachi
// and humago contexts (and wrappers that unwrap to them) carry them; any
// other adapter's context gets a request rebuilt from what it exposes and
// a writer onto the context itself.
func unwrap(ctx huma.Context) (*http.Request, http.ResponseWriter) {
	inner := ctx
	for {
		if u, ok := inner.(interface {
			Unwrap() (*http.Request, http.ResponseWriter)
		}); ok {
			return u.Unwrap()
		}
		if u, ok := inner.(interface{ Unwrap() huma.Context }); ok {
			inner = u.Unwrap()
			continue
		}
		break
	}
	u := ctx.URL()
	r := (&http.Request{Method: ctx.Method(), URL: &url.URL{Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery},
		Header: http.Header{}, Host: ctx.Host(), RemoteAddr: ctx.RemoteAddr()}).WithContext(ctx.Context())
	ctx.EachHeader(func(name, value string) { r.Header.Add(name, value) })
	return r, &contextWriter{ctx: ctx, header: http.Header{}}
}

// contextWriter writes through a huma.Context.
type contextWriter struct {
	ctx         huma.Context
	header      http.Header
	wroteHeader bool
}

func (w *contextWriter) Header() http.Header { return w.header }
func (w *contextWriter) WriteHeader(status int) {
	if w.wroteHeader {
		return
	}
	w.wroteHeader = true
	for k, vs := range w.header {
		for i, v := range vs {
			if i == 0 {
				w.ctx.SetHeader(k, v)
			} else {
				w.ctx.AppendHeader(k, v)
			}
		}
	}
	w.ctx.SetStatus(status)
}
func (w *contextWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.ctx.BodyWriter().Write(b)
}
