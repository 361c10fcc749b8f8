package oauthclient

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// slot caches one token (a client-credentials pattern's, or one exchange)
// and runs at most one fetch for it at a time.
type slot struct {
	cur atomic.Pointer[token]

	mu          sync.Mutex
	fl          *flight   // the fetch in flight, nil when none
	gen         uint64    // generation of the newest token
	lastDrop    time.Time // when an API refusal last dropped the token
	dropPending bool      // the next fetch follows a drop
	refused     memo      // a refusal of this token, remembered
}

// flight is one fetch that any number of requests may wait for.
type flight struct {
	done chan struct{}
	tok  *token
	err  error
}

// fetchSpec is what a slot needs to build its token request.
type fetchSpec struct {
	caller    string    // the caller token for exchanges
	capExpiry time.Time // the caller token's exp; zero when not cached
}

// get returns a usable token from s, starting a fetch when needed. Inside
// the refresh window it starts a background fetch and returns the cached
// token at once; with no usable token it waits for the fetch, or for ctx.
// Cancelling ctx stops the wait, never the fetch.
func (p *Pattern) get(ctx context.Context, s *slot, spec fetchSpec) (*token, error) {
	if t := s.cur.Load(); t != nil && p.client.elapsed() < t.refreshMark {
		return t, nil
	}
	return p.slow(ctx, s, p.client.clock.Now(), spec)
}

func (p *Pattern) slow(ctx context.Context, s *slot, now time.Time, spec fetchSpec) (*token, error) {
	c := p.client
	s.mu.Lock()
	cur := s.cur.Load()
	var alive time.Time
	if cur != nil && p.kind == kindClientCredentials {
		// Exchanges are not refreshed ahead and may be many: their
		// failure memory is not cut short by their tokens' ends.
		alive = cur.expiresAt
	}
	if t := cur; t != nil && now.Before(t.expiresAt) {
		if now.Before(t.refreshAt) || s.fl != nil ||
			s.refused.active(now, alive) != nil || c.memory.check(p.grant, now, alive) != nil {
			s.mu.Unlock()
			return t, nil
		}
		s.launch(ctx, p, spec, triggerRefresh, alive)
		s.mu.Unlock()
		return t, nil
	}
	fl := s.fl
	if fl == nil {
		if err := s.refused.active(now, alive); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		if err := c.memory.check(p.grant, now, alive); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		trigger := triggerFirst
		switch {
		case s.dropPending:
			trigger = triggerDropped
		case s.gen > 0:
			trigger = triggerExpired
		}
		if fl = s.launch(ctx, p, spec, trigger, alive); fl == nil {
			s.mu.Unlock()
			return nil, ErrClosed
		}
	}
	s.mu.Unlock()
	select {
	case <-fl.done:
		return fl.tok, fl.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// launch starts a fetch on a client-owned goroutine. s.mu is held. It
// returns nil when the client is closed.
func (s *slot) launch(ctx context.Context, p *Pattern, spec fetchSpec, trigger string, alive time.Time) *flight {
	rq := p.request(spec, trigger)
	rq.alive = alive
	rq.link = trace.SpanContextFromContext(ctx)
	fl := &flight{done: make(chan struct{})}
	if !p.client.goOwned(func(cctx context.Context) { s.run(cctx, p, fl, rq) }) {
		return nil
	}
	s.fl = fl
	s.dropPending = false
	return fl
}

func (s *slot) run(ctx context.Context, p *Pattern, fl *flight, rq *tokenRequest) {
	tok, err := p.client.fetch(ctx, rq)
	s.mu.Lock()
	if err == nil {
		s.gen++
		tok.gen = s.gen
		s.cur.Store(tok)
		s.refused = memo{}
	} else {
		var tr *TokenRefusedError
		if errors.As(err, &tr) {
			s.refused = memo{err: err, until: tr.Until, since: p.client.clock.Now()}
		}
	}
	if s.fl == fl {
		s.fl = nil
	}
	s.mu.Unlock()
	fl.tok, fl.err = tok, err
	close(fl.done)
}

// invalidate is called when an API refused t with invalid_token. It drops
// t if it is still cached and no drop happened within interval, and
// reports whether the request may be repeated: after its own drop, or when
// another refusal already dropped or replaced t (refusals arriving together
// share one fetch). A second refusal within interval keeps the token and
// reports false, so the 401 goes back to the caller.
func (s *slot) invalidate(t *token, now time.Time, interval time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.cur.Load()
	if cur == nil || cur.gen != t.gen {
		return true
	}
	if !s.lastDrop.IsZero() && now.Sub(s.lastDrop) < interval {
		return false
	}
	s.cur.Store(nil)
	s.lastDrop = now
	s.dropPending = true
	return true
}
