package fxsvc

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// lockedBuffer is a bytes.Buffer safe for the logger's writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Count(l.b.Bytes(), []byte("\n"))
}

// The access log writes one record per request: the default logger's
// sampling (for a flood of one message) must not drop the records of a
// busy route, whose messages are all alike.
func TestAccessLogOnTheDefaultLoggerIsNotSampled(t *testing.T) {
	var out lockedBuffer
	w, err := newTelemetry(telemetryIn{AccessLog: []accessLogOn{{}}, Log: logIn{Fallback: &logFallback{w: &out}}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := w.wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	if err != nil {
		t.Fatal(err)
	}
	const n = 300 // well past the sampler's 100 a second, within one second or not
	for range n {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/busy", nil))
	}
	if got := out.lines(); got != n {
		t.Fatalf("%d access records for %d requests", got, n)
	}
}
