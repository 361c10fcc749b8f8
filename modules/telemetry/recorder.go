package telemetry

import (
	"bufio"
	"net"
	"net/http"
)

// recorder sees the status and the body size of an answer. It keeps
// websockets and streams working: Hijack and Flush reach the server's
// writer (a hijack counts as 101 Switching Protocols), and Unwrap lets
// http.ResponseController find whatever else it offers.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *recorder) WriteHeader(code int) {
	// 1xx answers other than 101 are interim: the final status follows.
	if w.status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Flush sends what is buffered; a writer that cannot flush ignores it, as
// http.Flusher has no way to say so.
func (w *recorder) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack hands the connection over (websockets), through whatever the
// server's writer supports; http.ErrNotSupported when it cannot.
func (w *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil && w.status == 0 {
		w.status = http.StatusSwitchingProtocols
	}
	return c, rw, err
}

// Unwrap returns the server's writer, for http.ResponseController.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// statusCode is the status the caller got: 200 when the handler wrote
// nothing (net/http's answer then).
func (w *recorder) statusCode() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}
