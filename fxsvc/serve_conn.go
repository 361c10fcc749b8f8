package fxsvc

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
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
// handlers of hijacked connections too, and declines keep-alive while the
// connection limit is under pressure.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.running.enter()
	defer s.running.leave()
	// Once its handler returns, a hijacked connection is the handler's
	// business (it closed it, or handed it on): stop no longer cuts it.
	defer s.hijacked.forget(r.Context())
	s.limit.declineKeepAlive(w, r)
	s.next.ServeHTTP(w, r)
}

// connKey carries a request's connection in its context (through
// http.Server.ConnContext), so that its handler's end can find it among
// the hijacked ones.
type connKey struct{}

func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// hijackedConns are the connections hijacked by handlers still running:
// http.Server.Close does not close them, so a drain that runs out closes
// them itself, and the handlers' reads and writes fail.
type hijackedConns struct {
	n     atomic.Int64 // len(conns), so that most requests skip the lock
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// connState is the http.Server.ConnState of the server.
func (h *hijackedConns) connState(c net.Conn, st http.ConnState) {
	if st != http.StateHijacked {
		return
	}
	h.mu.Lock()
	if h.conns == nil {
		h.conns = map[net.Conn]struct{}{}
	}
	h.conns[c] = struct{}{}
	h.n.Store(int64(len(h.conns)))
	h.mu.Unlock()
}

func (h *hijackedConns) forget(ctx context.Context) {
	if h.n.Load() == 0 {
		return
	}
	c, _ := ctx.Value(connKey{}).(net.Conn)
	if c == nil {
		return
	}
	h.mu.Lock()
	delete(h.conns, c)
	h.n.Store(int64(len(h.conns)))
	h.mu.Unlock()
}

// closeAll closes every connection whose handler still runs.
func (h *hijackedConns) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.conns {
		_ = c.Close()
		delete(h.conns, c)
	}
	h.n.Store(0)
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
