package svcerrors

import (
	"errors"
	"net/http"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/svckit/svc/internal/upstreamkind"
)

// ProblemMediaType is the media type of RFC 9457 bodies.
const ProblemMediaType = "application/problem+json"

// defaultDocsURL documents every kind under its anchor. It is the default
// {errors_doc_url}.
const defaultDocsURL = "https://github.com/svckit/svc/blob/main/docs/errors.md"

// KindDocs, passed as the referenceError of [NewTMF], makes each TMF630 body
// point at its kind's section of the errors documentation: the default. Any
// other non-empty value is used as given, with "{anchor}" replaced by the
// kind's anchor; an empty value omits referenceError.
const KindDocs = "{errors_doc_url}#{anchor}"

// frameworkAnchor is the docs section about router errors (type about:blank),
// used only for TMF630 referenceError.
const frameworkAnchor = "framework-errors"

// format is the body format of a [Responses].
type format int

const (
	// formatProblem renders RFC 9457 problem details (application/problem+json).
	formatProblem format = iota
	// formatTMF renders TM Forum TMF630 errors (application/json).
	formatTMF
)

// Responses is the registered error format of an app. Its zero value is not
// usable; build one with [New] or [NewTMF]. It is safe for concurrent use.
type Responses struct {
	format       format
	docsURL      string
	tmfPrefix    string
	tmfReference string
	logger       *zap.Logger

	// Escaped once at construction, so rendering only copies them.
	escDocsURL []byte   // docsURL
	escPrefix  []byte   // "<tmfPrefix>-"; empty without a prefix
	refParts   [][]byte // tmfReference with {errors_doc_url} filled in, split at {anchor}

	mu       sync.RWMutex
	handlers []registered
}

// Option configures a [Responses].
type Option func(*Responses)

// DocsURL sets {errors_doc_url}, the page documenting every kind under its
// anchor. Default: svc's own docs/errors.md,
// https://github.com/svckit/svc/blob/main/docs/errors.md.
func DocsURL(url string) Option {
	return func(r *Responses) {
		if url != "" {
			r.docsURL = strings.TrimRight(url, "#")
		}
	}
}

// Logger sets where errors that no entry knows are logged. Default: the
// global zap logger (zap.L()).
func Logger(l *zap.Logger) Option {
	return func(r *Responses) {
		if l != nil {
			r.logger = l
		}
	}
}

// New returns RFC 9457 problem-detail responses.
func New(opts ...Option) *Responses {
	r := &Responses{format: formatProblem, docsURL: defaultDocsURL}
	for _, o := range opts {
		o(r)
	}
	r.prepare()
	return r
}

// prepare escapes the fixed parts of every body once.
func (r *Responses) prepare() {
	r.escDocsURL = appendEscaped(nil, r.docsURL)
	r.escPrefix = nil
	if r.tmfPrefix != "" {
		r.escPrefix = append(appendEscaped(nil, r.tmfPrefix), '-')
	}
	r.refParts = nil
	if r.tmfReference != "" {
		ref := strings.ReplaceAll(r.tmfReference, "{errors_doc_url}", r.docsURL)
		for _, part := range strings.Split(ref, "{anchor}") {
			r.refParts = append(r.refParts, appendEscaped(nil, part))
		}
	}
}

// NewTMF returns TM Forum TMF630 responses. codePrefix starts every `code`
// (`<prefix>-<ANCHOR-IN-UPPERCASE>`); referenceError is [KindDocs] for the
// default, another address (where "{anchor}" is replaced), or "" to omit
// the member.
func NewTMF(codePrefix, referenceError string, opts ...Option) *Responses {
	r := New(opts...)
	r.format = formatTMF
	r.tmfPrefix = strings.TrimRight(codePrefix, "-")
	r.tmfReference = referenceError
	r.prepare()
	return r
}

// fallback is the format of a request with none registered.
var fallback = New()

// MediaType is the Content-Type of the bodies this format writes:
// [ProblemMediaType] for RFC 9457, application/json for TMF630. It is how
// a caller tells the two apart.
func (r *Responses) MediaType() string {
	if r.format == formatTMF {
		return "application/json"
	}
	return ProblemMediaType
}

// Describe finds how err is answered: a [Rejection] anywhere in its chain,
// then an outbound token failure of modules/oauthclient (503
// upstream-token-unavailable or 502 upstream-token-refused). ok is false
// for any other error; those are never rendered, as they signal a bug or an
// outage.
func Describe(err error) (d Description, ok bool) {
	// The error itself is almost always the rejection: skip errors.As,
	// whose reflection and escaping target cost more than the rendering.
	if rej, ok := err.(Rejection); ok {
		return rej.Describe(), true
	}
	var rej Rejection
	if errors.As(err, &rej) {
		return rej.Describe(), true
	}
	if anchor, retryAfter, ok := upstreamkind.Name(err); ok {
		if k, ok := kindByAnchor(anchor); ok {
			return Description{Kind: k, RetryAfter: max(retryAfter, 0)}, true
		}
	}
	return Description{}, false
}

// Render turns err into the response this format gives it, for a request to
// instance (the request path as sent, req.URL.EscapedPath(): a URI
// reference, as RFC 9457 asks). An error no entry knows renders as a 500
// whose body says nothing of it; Rendered.Known is false then.
//
// Use it where the response is needed as a value (raw middleware, a test,
// an adapter that writes it itself): it consults no [On] handler and logs
// nothing, which [Responses.ServeError] does.
func (r *Responses) Render(err error, instance string) Rendered {
	d, ok := Describe(err)
	if !ok {
		d = Description{Kind: frameworkKind(http.StatusInternalServerError)}
	}
	out := r.renderDescription(d, instance)
	out.Known = ok
	return out
}

// renderDescription renders a description built without an error value:
// the router's own errors and [Respond].
func (r *Responses) renderDescription(d Description, instance string) Rendered {
	out := Rendered{Status: d.Status, header: d.Header, mediaType: r.MediaType(), Known: true}
	if d.RetryAfter > 0 {
		out.retryAfter = retryAfterSeconds(d.RetryAfter)
	}
	// Sized from the texts the body holds, so it is not regrown.
	size := 128 + 2*(len(r.escDocsURL)+len(d.DocsURL)+len(d.Anchor)) + len(d.Title) + len(d.detail()) + len(instance)
	for _, fe := range d.Errors {
		size += 40 + len(fe.Msg) + len(fe.Type)
		for _, l := range fe.Loc {
			size += 3 + len(l)
		}
	}
	size += 64 * len(d.Extensions)
	if r.format == formatTMF {
		out.Body = r.appendTMF(make([]byte, 0, size), d)
	} else {
		out.Body = r.appendProblem(make([]byte, 0, size), d, instance)
	}
	return out
}

// Rendered is an error response ready to be written: by the routed path,
// or by raw middleware that sits outside any router. Both write the same
// bytes.
type Rendered struct {
	Status int
	Body   []byte
	// Known is false when the error was not one the format knows (a 500).
	Known bool

	mediaType  string
	retryAfter string
	header     http.Header
}

func (r Rendered) setHeaders(h http.Header) {
	for k, v := range r.header {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), v...)
	}
	// One allocation for all values; each slice is capped at its own
	// element, so an Add to one header cannot write into the next.
	vals := make([]string, 3, 4)
	vals[0], vals[1], vals[2] = r.mediaType, "no-store", "nosniff"
	h["Content-Type"] = vals[0:1:1]
	h["Cache-Control"] = vals[1:2:2]
	h["X-Content-Type-Options"] = vals[2:3:3]
	if r.retryAfter != "" {
		vals = append(vals, r.retryAfter)
		h["Retry-After"] = vals[3:4:4]
	}
	delete(h, "Content-Length")
	// The body is written as it is: an encoding set for the body it
	// replaces (a compressing middleware's gzip) would make it unreadable.
	delete(h, "Content-Encoding")
}

// Write sends the response: status, the safety headers
// (Cache-Control: no-store, X-Content-Type-Options: nosniff), Retry-After
// when the answer carries one, and the body. Headers already set on w by the
// failing handler are overwritten where they clash; their Content-Length and
// Content-Encoding, which described another body, are removed.
func (r Rendered) Write(w http.ResponseWriter) {
	r.setHeaders(w.Header())
	w.WriteHeader(r.Status)
	_, _ = w.Write(r.Body)
}
