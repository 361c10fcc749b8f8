package fxsvc

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// shuttingDownKey carries the server's stopping channel in every request's
// context (through http.Server.BaseContext). A value, not a cancellation:
// cancelling the request contexts at drain start would abort the very
// requests the drain lets finish.
type shuttingDownKey struct{}

func (s *Server) baseContext(net.Listener) context.Context {
	ctx := context.WithValue(context.Background(), shuttingDownKey{}, (<-chan struct{})(s.stopping))
	return context.WithValue(ctx, stoppingKey{}, s.leaving)
}

// ShuttingDown returns the channel [Server.ShuttingDown] of the server that
// is serving the request whose context ctx is (or derives from): closed when
// the server starts draining on stop. A long-lived handler selects on it
// to close its connection cleanly, a websocket with status 1001 (going
// away). Outside a request of [Serve] it returns nil, a channel that never
// closes.
func ShuttingDown(ctx context.Context) <-chan struct{} {
	ch, _ := ctx.Value(shuttingDownKey{}).(<-chan struct{})
	return ch
}

// serveHTTP counts every running handler, so that stop can wait for the
// handlers of hijacked connections too.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.running.enter()
	defer s.running.leave()
	s.next.ServeHTTP(w, r)
}

// inflight counts running handlers. Not a sync.WaitGroup: a handler may
// still start (on a connection Close is cutting) while stop waits, and a
// WaitGroup forbids Add during Wait from zero.
type inflight struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0; nil when nobody waits
}

func (f *inflight) enter() {
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
}

func (f *inflight) leave() {
	f.mu.Lock()
	f.n--
	if f.n == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
	f.mu.Unlock()
}

func (f *inflight) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// wait returns when no handler runs, or ctx's error when it ends first.
func (f *inflight) wait(ctx context.Context) error {
	f.mu.Lock()
	if f.n == 0 {
		f.mu.Unlock()
		return nil
	}
	if f.idle == nil {
		f.idle = make(chan struct{})
	}
	idle := f.idle
	f.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
