package conditional

import (
	"bytes"
	"net/http"

	"github.com/svckit/svc/internal/behind"
)

// ETags is a marker middleware for GET and HEAD: a 200 gets a strong ETag
// computed from its body unless the handler set one, and a request whose
// If-None-Match matches it (weak comparison, RFC 9110 §13.1.2), or, without
// If-None-Match, whose If-Modified-Since is not before the handler's
// Last-Modified, answers 304 with the validators and no body. Other
// methods and statuses pass through untouched; a body over MaxBodySize
// streams through without an ETag.
func ETags() func(http.Handler) http.Handler {
	return behind.MarkerOf("conditional.ETags", "conditional=etags", func(b behind.Marker) *etagMarker {
		return &etagMarker{b}
	})
}

type etagMarker struct{ behind.Marker }

func (m *etagMarker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := componentFor(r)
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || !c.paths.Applies(r) || behind.Unrouted(r) {
		m.Next.ServeHTTP(w, r)
		return
	}
	bw := &bufferedWriter{ResponseWriter: w, max: c.maxBody, status: http.StatusOK}
	m.Next.ServeHTTP(bw, r)
	if bw.committed {
		return
	}
	h := w.Header()
	if bw.status == http.StatusOK {
		etag := h.Get("ETag")
		if etag == "" && (r.Method == http.MethodGet || bw.body.Len() > 0) {
			etag = ETagOf(bw.body.Bytes())
			h.Set("ETag", etag)
		}
		if behind.NotModified(r, etag, h.Get("Last-Modified")) {
			// RFC 9110 §15.4.5: the validators and caching headers stay,
			// the representation's own headers go.
			h.Del("Content-Type")
			h.Del("Content-Length")
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	w.WriteHeader(bw.status)
	_, _ = w.Write(bw.body.Bytes())
}

// APIDoc tells API documents the If-None-Match a GET is answered 304 to
// and the ETag its 200 carries.
func (m *etagMarker) APIDoc(method string) behind.APIDoc {
	if method != http.MethodGet && method != http.MethodHead {
		return behind.APIDoc{}
	}
	return behind.APIDoc{
		Params:  []behind.Header{{Name: "If-None-Match", Description: "ETags the client holds (weak comparison): a match answers 304 without a body."}},
		Headers: []behind.Header{{Name: "ETag", Description: "The representation's entity tag."}},
		Answers: []behind.Answer{{Status: http.StatusNotModified, Description: "Not Modified: the representation matches If-None-Match (or is not newer than If-Modified-Since); no body."}},
	}
}

// bufferedWriter holds a response until the handler returns, up to max
// bytes; past that it commits what it holds and streams the rest.
type bufferedWriter struct {
	http.ResponseWriter
	max       int
	status    int
	wrote     bool
	committed bool
	body      bytes.Buffer
}

func (w *bufferedWriter) WriteHeader(code int) {
	if w.committed {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	if code >= 100 && code < 200 {
		// Informational answers (103 Early Hints) go out at once.
		w.ResponseWriter.WriteHeader(code)
		return
	}
	if !w.wrote {
		w.status, w.wrote = code, true
	}
}

func (w *bufferedWriter) Write(p []byte) (int, error) {
	w.wrote = true
	if w.committed {
		return w.ResponseWriter.Write(p)
	}
	if w.body.Len()+len(p) <= w.max {
		return w.body.Write(p)
	}
	w.commit()
	return w.ResponseWriter.Write(p)
}

func (w *bufferedWriter) commit() {
	w.committed = true
	w.ResponseWriter.WriteHeader(w.status)
	_, _ = w.ResponseWriter.Write(w.body.Bytes())
	w.body.Reset()
}

// Flush streams: the response then goes without an ETag.
func (w *bufferedWriter) Flush() {
	if !w.committed {
		w.commit()
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *bufferedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
