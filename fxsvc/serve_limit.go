package fxsvc

import (
	"container/list"
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	otelmetric "go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"
)

// shedConnectionsMetric counts the connections [Serve] shed under load,
// by svc.http.server.shed_reason: "idle" (an idle keep-alive connection
// closed, oldest first, to make room), "keep_alive" (a connection closed
// after its response instead of kept alive) and "refused" (a new
// connection refused at SVC_HTTP_MAX_CONNECTIONS).
const shedConnectionsMetric = "svc.http.server.shed_connections"

// shedReportEvery is how often the summary of shed connections is logged,
// when any was shed.
const shedReportEvery = time.Minute

// connLimit caps the server's open connections (SVC_HTTP_MAX_CONNECTIONS).
// Above its high mark (nine tenths of the cap) it is under pressure: each
// new connection first closes the oldest idle keep-alive ones, and answers
// close their connection instead of keeping it alive; at the cap, with no
// idle connection left to close, a new connection is refused.
//
// Without it, idle keep-alive connections up to the descriptor limit
// lock every new client out until the idle timeout reaps them (accept
// fails with EMFILE while the listen backlog fills).
type connLimit struct {
	max, high int

	mu     sync.Mutex
	open   int        // admitted, not yet closed: each holds a descriptor
	idle   *list.List // of *limitedConn, oldest first
	states [http.StateClosed + 1]int

	pressure atomic.Bool // open >= high: answers decline keep-alive
	// Cumulative counts, for the metric and the summary line.
	shedIdle, declined, refused atomic.Int64
}

func newConnLimit(max int) *connLimit {
	high := max - max/10
	if high == max {
		high = max - 1
	}
	return &connLimit{max: max, high: high, idle: list.New()}
}

// limitedConn is an admitted connection. Its descriptor is counted until
// it is closed, whoever closes it: net/http, a handler that hijacked it,
// or the limit shedding it.
type limitedConn struct {
	net.Conn
	l        *connLimit
	state    http.ConnState
	idleAt   *list.Element // in l.idle while the connection is idle
	released bool
}

func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	c.l.releaseLocked(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// CloseWrite half-closes the connection, as net/http does before closing
// one it answered with Connection: close, so that the request's unread
// bytes do not reset the answer away before the client reads it. The
// wrapper would otherwise hide the TCP connection's method.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom keeps the TCP connection's sendfile and splice for responses
// copied from a file.
func (c *limitedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// limitListener admits connections under the limit and refuses the rest
// at once.
type limitListener struct {
	net.Listener
	l *connLimit
}

// Accept returns the next admitted connection. One beyond the cap is
// accepted and reset (TCP RST) at once: its client sees "connection
// reset" within a round trip, rather than a connect that waits on a full
// listen backlog until it times out. No HTTP answer is written: under TLS
// there is no handshake yet to write it in, and the request is not read.
func (ln *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := ln.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := ln.l.admit(c); lc != nil {
			return lc, nil
		}
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		_ = c.Close()
	}
}

// admit counts c in, first closing the oldest idle connections while the
// limit is under pressure; nil when c is over the cap.
func (l *connLimit) admit(c net.Conn) *limitedConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.open >= l.high && l.shedOldestIdleLocked() {
	}
	if l.open >= l.max {
		l.refused.Add(1)
		return nil
	}
	l.open++
	l.states[http.StateNew]++
	l.pressure.Store(l.open >= l.high)
	return &limitedConn{Conn: c, l: l, state: http.StateNew}
}

// shedOldestIdleLocked closes the connection idle the longest; false when
// none is idle. A request whose first bytes arrive just as it is closed
// is lost with it, as with net/http's own closing of idle connections:
// clients retry such requests on a new connection.
func (l *connLimit) shedOldestIdleLocked() bool {
	e := l.idle.Front()
	if e == nil {
		return false
	}
	c := e.Value.(*limitedConn)
	l.releaseLocked(c)
	l.shedIdle.Add(1)
	// The raw close: c.Close would take l.mu again. net/http's read then
	// fails and closes c, which no longer counts.
	_ = c.Conn.Close()
	return true
}

func (l *connLimit) releaseLocked(c *limitedConn) {
	if c.released {
		return
	}
	c.released = true
	l.open--
	l.states[c.state]--
	if c.idleAt != nil {
		l.idle.Remove(c.idleAt)
		c.idleAt = nil
	}
	l.pressure.Store(l.open >= l.high)
}

// connState is the limit's part of http.Server.ConnState: it keeps the
// idle connections in the order they became idle.
func (l *connLimit) connState(nc net.Conn, st http.ConnState) {
	c := asLimited(nc)
	if c == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.released {
		return
	}
	l.states[c.state]--
	l.states[st]++
	c.state = st
	switch {
	case st == http.StateIdle && c.idleAt == nil:
		c.idleAt = l.idle.PushBack(c)
	case st != http.StateIdle && c.idleAt != nil:
		l.idle.Remove(c.idleAt)
		c.idleAt = nil
	}
}

// asLimited finds the admitted connection under nc: a TLS connection
// wraps it.
func asLimited(nc net.Conn) *limitedConn {
	for range 4 {
		switch c := nc.(type) {
		case *limitedConn:
			return c
		case interface{ NetConn() net.Conn }:
			nc = c.NetConn()
		default:
			return nil
		}
	}
	return nil
}

// busy is how many open connections are reading a request, serving it or
// writing its answer: neither idle nor hijacked.
func (l *connLimit) busy() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open - l.states[http.StateIdle] - l.states[http.StateHijacked]
}

// declineKeepAlive makes the answer close its connection while the limit
// is under pressure, so that connections are handed back rather than kept
// idle. HTTP/1 only: under HTTP/2 it would end every stream of the
// connection.
func (l *connLimit) declineKeepAlive(w http.ResponseWriter, r *http.Request) {
	if !l.pressure.Load() || r.ProtoMajor != 1 {
		return
	}
	w.Header().Set("Connection", "close")
	l.declined.Add(1)
}

var (
	shedIdleAttrs     = otelmetric.WithAttributeSet(attribute.NewSet(attribute.String("svc.http.server.shed_reason", "idle")))
	shedDeclinedAttrs = otelmetric.WithAttributeSet(attribute.NewSet(attribute.String("svc.http.server.shed_reason", "keep_alive")))
	shedRefusedAttrs  = otelmetric.WithAttributeSet(attribute.NewSet(attribute.String("svc.http.server.shed_reason", "refused")))
)

// observe reports the shed connections into mp, read from the counts at
// each collection: nothing is added on the request path.
func (l *connLimit) observe(mp otelmetric.MeterProvider) error {
	_, err := mp.Meter(meterScope).Int64ObservableCounter(shedConnectionsMetric,
		otelmetric.WithDescription("Connections the HTTP server shed under load (SVC_HTTP_MAX_CONNECTIONS)."),
		otelmetric.WithUnit("{connection}"),
		otelmetric.WithInt64Callback(func(_ context.Context, o otelmetric.Int64Observer) error {
			o.Observe(l.shedIdle.Load(), shedIdleAttrs)
			o.Observe(l.declined.Load(), shedDeclinedAttrs)
			o.Observe(l.refused.Load(), shedRefusedAttrs)
			return nil
		}))
	return err
}

// meterScope is the instrumentation scope of fxsvc's own metrics.
const meterScope = "github.com/svckit/svc/fxsvc"

// shedCounts are the cumulative counts at one summary.
type shedCounts struct{ idle, declined, refused int64 }

func (l *connLimit) counts() shedCounts {
	return shedCounts{l.shedIdle.Load(), l.declined.Load(), l.refused.Load()}
}

// report logs what was shed since last, in one line, when anything was;
// it returns the counts it reported up to.
func (l *connLimit) report(log *zap.Logger, last shedCounts) shedCounts {
	now := l.counts()
	if now == last {
		return now
	}
	l.mu.Lock()
	open := l.open
	l.mu.Unlock()
	log.Warn("svc: HTTP connections shed under load (SVC_HTTP_MAX_CONNECTIONS)",
		zap.Int("max_connections", l.max), zap.Int("open_connections", open),
		zap.Int64("idle_closed", now.idle-last.idle),
		zap.Int64("keep_alive_declined", now.declined-last.declined),
		zap.Int64("refused", now.refused-last.refused))
	return now
}

// reportEvery logs the summary every period until stop closes, then once
// more for what the last period shed; done is closed when it returns.
func (l *connLimit) reportEvery(log *zap.Logger, period time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(period)
	defer t.Stop()
	var last shedCounts
	for {
		select {
		case <-t.C:
			last = l.report(log, last)
		case <-stop:
			l.report(log, last)
			return
		}
	}
}
