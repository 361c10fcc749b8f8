package idempotency

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"strings"

	"github.com/svckit/svc/internal/behind"
)

// maxKeyLength is the longest Idempotency-Key accepted, in characters.
const maxKeyLength = 255

// maxStoredResponse bounds a stored response body; a larger one is not
// replayed (the key is released).
const maxStoredResponse = 1 << 20

// readKey reads the Idempotency-Key: one header line, 1 to 255 printable
// ASCII characters. The draft writes it as a structured-field string
// ("..."); a bare value is accepted too, as most clients send one.
func readKey(h http.Header) (key string, present, valid bool) {
	vs := h[HeaderKey]
	if len(vs) == 0 {
		return "", false, false
	}
	if len(vs) > 1 {
		return "", true, false
	}
	key = vs[0]
	if len(key) >= 2 && key[0] == '"' && key[len(key)-1] == '"' {
		key = key[1 : len(key)-1]
		if strings.ContainsAny(key, `"\`) {
			return "", true, false
		}
	}
	if key == "" || len(key) > maxKeyLength {
		return "", true, false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "", true, false
		}
	}
	return key, true, true
}

// fingerprint covers what makes two requests the same payload: method,
// path from the app's root, query and body.
func fingerprint(r *http.Request, body []byte) string {
	h := sha256.New()
	h.Write([]byte(r.Method))
	h.Write([]byte{0})
	h.Write([]byte(behind.Root(r)))
	h.Write([]byte{0})
	h.Write([]byte(r.URL.RawQuery))
	h.Write([]byte{0})
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// recorder passes the response through to the client and keeps a copy.
type recorder struct {
	http.ResponseWriter
	status   int
	wrote    bool
	body     bytes.Buffer
	overflow bool
}

func (w *recorder) WriteHeader(code int) {
	// An informational answer (103 Early Hints) is not the response.
	if !w.wrote && code >= 200 {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(p []byte) (int, error) {
	w.wrote = true
	if !w.overflow {
		if w.body.Len()+len(p) > maxStoredResponse {
			w.overflow = true
			w.body.Reset()
		} else {
			w.body.Write(p)
		}
	}
	return w.ResponseWriter.Write(p)
}

// Flush keeps streaming handlers working.
func (w *recorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack hands the connection over; the response is then not stored.
func (w *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.overflow = true
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
