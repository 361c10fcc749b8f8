package responsecache

import (
	"bytes"
	"net/http"
	"sync"
)

// flights lets one request per key run the handler while the others wait:
// a thundering herd of misses costs one run.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
}

type flight struct{ done chan struct{} }

// join returns the key's flight and whether the caller leads it (and must
// leave it).
func (fs *flights) join(key string) (*flight, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f, ok := fs.m[key]; ok {
		return f, false
	}
	if fs.m == nil {
		fs.m = map[string]*flight{}
	}
	f := &flight{done: make(chan struct{})}
	fs.m[key] = f
	return f, true
}

// leave ends the flight, also when the handler panicked (it is deferred),
// so that no follower waits forever.
func (fs *flights) leave(key string, f *flight) {
	fs.mu.Lock()
	delete(fs.m, key)
	fs.mu.Unlock()
	close(f.done)
}

// recorder passes the response through and keeps a copy up to max bytes.
type recorder struct {
	http.ResponseWriter
	status   int
	wrote    bool
	max      int
	body     bytes.Buffer
	overflow bool
}

func (w *recorder) WriteHeader(code int) {
	if !w.wrote && code >= 200 {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(p []byte) (int, error) {
	w.wrote = true
	if !w.overflow {
		if w.body.Len()+len(p) > w.max {
			w.overflow = true
			w.body.Reset()
		} else {
			w.body.Write(p)
		}
	}
	return w.ResponseWriter.Write(p)
}

// Flush keeps streaming handlers working; a streamed response is not
// stored.
func (w *recorder) Flush() {
	w.overflow = true
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
