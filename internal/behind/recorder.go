package behind

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
)

// Recorder passes a response through to the client and keeps a copy of
// its status and of up to Max bytes of its body, for a component that
// stores responses (idempotency's records, the response cache).
type Recorder struct {
	http.ResponseWriter
	// Status is the final status; set it to 200 before the handler runs.
	Status int
	// Wrote says the handler wrote a final status or a body.
	Wrote bool
	// Max bounds the copy of the body.
	Max int
	// Body is the copy; it is empty once Overflow is set.
	Body bytes.Buffer
	// Overflow says the copy is not the response and must not be stored:
	// the body passed Max, the connection was hijacked, or (with
	// FlushOverflows) the response was streamed.
	Overflow bool
	// FlushOverflows makes a flushed response one that is not stored.
	FlushOverflows bool
}

// WriteHeader keeps the final status; an informational answer (103 Early
// Hints) is not the response.
func (w *Recorder) WriteHeader(code int) {
	if !w.Wrote && code >= 200 {
		w.Status, w.Wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *Recorder) Write(p []byte) (int, error) {
	w.Wrote = true
	if !w.Overflow {
		if w.Body.Len()+len(p) > w.Max {
			w.Overflow = true
			w.Body.Reset()
		} else {
			w.Body.Write(p)
		}
	}
	return w.ResponseWriter.Write(p)
}

// Flush keeps streaming handlers working.
func (w *Recorder) Flush() {
	if w.FlushOverflows {
		w.Overflow = true
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack hands the connection over; the response is then not stored.
func (w *Recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.Overflow = true
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *Recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
