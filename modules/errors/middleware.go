package svcerrors

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"strings"
)

// Middleware makes the format the request's registered format and re-shapes
// the router's own errors into it: a response of status 400 or more whose
// Content-Type is unset or text/plain (chi's 404 and 405, http.Error,
// http.NotFound) keeps its status and headers (Allow, WWW-Authenticate) and
// gets the format's body with type about:blank. The router's text is dropped,
// since it may quote the request. Responses a handler wrote with its own
// media type are left alone.
func (r *Responses) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		req = req.WithContext(withResponses(req.Context(), r))
		next.ServeHTTP(&errorWriter{ResponseWriter: w, res: r, path: req.URL.EscapedPath()}, req)
	})
}

type errorWriter struct {
	http.ResponseWriter
	res         *Responses
	path        string
	wroteHeader bool
	swallow     bool
}

func (w *errorWriter) WriteHeader(code int) {
	if w.wroteHeader {
		return
	}
	if code < 200 {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.wroteHeader = true
	if code >= 400 && plain(w.Header().Get("Content-Type")) {
		w.swallow = true
		w.res.renderDescription(Description{Kind: frameworkKind(code)}, w.path).Write(w.ResponseWriter)
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *errorWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.swallow {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func plain(contentType string) bool {
	return contentType == "" || strings.HasPrefix(contentType, "text/plain")
}

// Flush keeps streaming handlers working under the middleware.
func (w *errorWriter) Flush() {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.swallow {
		return
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack keeps websocket upgrades working under the middleware.
func (w *errorWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := w.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, errors.New("svc: the underlying ResponseWriter cannot hijack")
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *errorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
