package responsecache

import (
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
