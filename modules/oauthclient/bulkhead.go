package oauthclient

import (
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
)

// Bulkhead caps the requests of each pattern in flight through its
// [Pattern.Transport] at n, from the request's start until its response
// body is closed, so one slow API cannot hold every connection and
// goroutine of the service. A request over the cap is refused at once
// with a [*BulkheadFullError] (503 bulkhead-full when a handler returns
// it); nothing waits. 0, the default, is no cap. It refuses a negative n.
// Overrides SVC_OAUTHCLIENT_BULKHEAD.
func Bulkhead(n int) Option {
	return countOption("oauthclient.Bulkhead", n, func(c *clientConfig) *int { return &c.bulkhead })
}

// MaxConcurrentFetches caps the token fetches running at once across all the
// client's patterns at n; a fetch over the cap waits for a turn (requests
// waiting for its token still end with their own context). 0, the
// default, is no cap. It refuses a negative n. Overrides
// SVC_OAUTHCLIENT_FETCH.
func MaxConcurrentFetches(n int) Option {
	return countOption("oauthclient.MaxConcurrentFetches", n, func(c *clientConfig) *int { return &c.maxFetches })
}

// countOption sets the count field returns to n, refusing a negative n
// under setting, the option's name.
func countOption(setting string, n int, field func(*clientConfig) *int) Option {
	return clientOption(func(c *clientConfig) error {
		if n < 0 {
			return &ConfigError{Setting: setting, Problem: "must not be negative"}
		}
		*field(c) = n
		return nil
	})
}

// BulkheadFullError is a request [Bulkhead] refused: its pattern already
// had Limit requests in flight. Retrying at once will likely meet the
// same; it carries no retry hint. Handlers that return it answer 503
// bulkhead-full.
type BulkheadFullError struct {
	Pattern string
	Limit   int
}

func (e *BulkheadFullError) Error() string {
	return fmt.Sprintf("oauthclient: pattern %q already has %d requests in flight, its bulkhead (SVC_OAUTHCLIENT_BULKHEAD, oauthclient.Bulkhead)", e.Pattern, e.Limit)
}

// bulkhead counts a pattern's requests in flight. The zero value (limit
// 0) admits everything without counting.
type bulkhead struct {
	limit    int64
	inFlight atomic.Int64
}

// enter takes a place, or reports false when all limit places are taken.
func (b *bulkhead) enter() bool {
	if b.limit == 0 {
		return true
	}
	if b.inFlight.Add(1) > b.limit {
		b.inFlight.Add(-1)
		return false
	}
	return true
}

func (b *bulkhead) leave() {
	if b.limit != 0 {
		b.inFlight.Add(-1)
	}
}

// holdUntilClosed keeps the place taken until resp's body is closed: the
// request is in flight while its answer is being read.
func (b *bulkhead) holdUntilClosed(resp *http.Response) {
	if b.limit == 0 {
		return
	}
	runOnClose(resp, b.leave)
}

// runOnClose makes resp's body call f once, when it is first closed.
func runOnClose(resp *http.Response, f func()) {
	l := &onClose{ReadCloser: resp.Body, f: f}
	if rw, ok := resp.Body.(io.ReadWriteCloser); ok {
		// A 101 answer's body is the upgraded connection (a websocket):
		// it must stay writable.
		resp.Body = onCloseWriter{l, rw}
		return
	}
	resp.Body = l
}

// onCloseWriter is onClose for a body that can be written to.
type onCloseWriter struct {
	*onClose
	w io.Writer
}

func (l onCloseWriter) Write(p []byte) (int, error) { return l.w.Write(p) }

type onClose struct {
	io.ReadCloser
	f    func()
	done atomic.Bool
}

func (l *onClose) Close() error {
	err := l.ReadCloser.Close()
	if l.done.CompareAndSwap(false, true) {
		l.f()
	}
	return err
}
