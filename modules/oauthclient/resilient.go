package oauthclient

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"time"
)

// resilient is the transport of a pattern built with [Resilience]: it
// sits in front of the token transport, so that every attempt carries a
// current token and keeps the token transport's own repeats (a 401
// invalid_token, a DPoP nonce).
type resilient struct {
	p    *Pattern
	next http.RoundTripper // the token transport
}

// withResilience puts t behind p's breakers and retries when p has
// [Resilience], and returns it as it is otherwise.
func (p *Pattern) withResilience(t *transport) http.RoundTripper {
	if p.resilience == nil {
		return t
	}
	return &resilient{p: p, next: t}
}

// resendKey is the context key of a repeat's number, which
// [resendCounted] puts on the attempt's client span.
type resendKey struct{}

// Why an attempt is retried or not, the values of svc.outcome on
// svc.oauthclient.retries.
const (
	retrySent     = "retried"
	retryBudget   = "budget_exhausted" // the host's retry budget is spent
	retryDeadline = "deadline"         // the wait and one more attempt do not fit before the deadline
	retryTooLong  = "wait_too_long"    // the server asked for a pause over MaxWait
	retryBreaker  = "breaker_open"     // the failures opened the host's breaker
)

func (r *resilient) RoundTrip(req *http.Request) (*http.Response, error) {
	p, cfg, c := r.p, r.p.resilience, r.p.client
	ctx := req.Context()
	h := p.hosts.get(req.URL)
	now := c.clock.Now()
	a := h.admit(now)
	p.breakerChanged(ctx, h, a.from, a.to)
	if !a.ok {
		closeBody(req.Body)
		p.breakerRefused(ctx, h)
		return nil, &CircuitOpenError{Pattern: p.name, Host: h.addr, RetryAfter: a.wait}
	}
	req = withIdempotencyKey(req, cfg.IdempotencyKeys)
	replayable := idempotent(req) && canReplay(req)
	deadline, hasDeadline := ctx.Deadline()
	sent := req
	for n := 1; ; n++ {
		var start time.Time
		if hasDeadline {
			start = time.Now()
		}
		resp, err := r.attempt(sent)
		o := attemptOutcome(resp, err)
		if o != outcomeSuccess {
			// A failure may open the breaker: OpenFor counts from now,
			// not from when a slow request was sent.
			now = c.clock.Now()
		}
		from, to := h.record(now, o, a.probe && n == 1, n == 1)
		p.breakerChanged(ctx, h, from, to)
		reason := retryReason(ctx, resp, err)
		if !replayable || n >= cfg.MaxAttempts || reason == "" {
			return resp, err
		}
		wait, asked := cfg.retryWait(c, resp, n)
		decision := retrySent
		if asked && wait > cfg.MaxWait {
			decision = retryTooLong
		} else if hasDeadline && time.Until(deadline) < wait+time.Since(start) {
			decision = retryDeadline
		} else if ok, budget := h.again(c.clock.Now()); !ok {
			decision = retryBreaker
			if !budget {
				decision = retryBudget
			}
		}
		p.retryDecided(ctx, h, n, reason, wait, decision)
		if decision != retrySent {
			return resp, err
		}
		body, ok := replayBody(req)
		if !ok {
			// GetBody failed: the body cannot be sent again after all.
			return resp, err
		}
		if resp != nil {
			drain(resp)
		}
		if err := cfg.sleep(ctx, wait); err != nil {
			closeBody(body)
			return nil, err
		}
		now = c.clock.Now()
		sent = req.WithContext(context.WithValue(ctx, resendKey{}, n))
		sent.Body = body
	}
}

// attemptOutcome judges an attempt for the breaker: an answer below 500
// is a success, a 5xx or no answer a failure. A request the caller
// cancelled, one that failed before it was sent (no token, the client
// closed), and one that no repeat can mend (a host name that does not
// exist, a certificate that does not verify: [permanent]) say nothing of
// the host's load.
func attemptOutcome(resp *http.Response, err error) outcome {
	switch {
	case err == nil && resp.StatusCode < 500:
		return outcomeSuccess
	case err == nil:
		return outcomeFailure
	case errors.Is(err, context.Canceled) || unsent(err) || permanent(err):
		return outcomeUnknown
	}
	return outcomeFailure
}

// retryReason is why an attempt may be repeated — its status (429, 502,
// 503, 504), "timeout" when AttemptTimeout cut it, or "connection" when
// no answer came — or "" when it may not: another answer, a request the
// caller gave up on, one that failed before it was sent, or one no
// repeat can mend ([permanent]). It is the error.type of the retry's
// telemetry.
func retryReason(ctx context.Context, resp *http.Response, err error) string {
	if err != nil {
		var cut *attemptTimeoutError
		switch {
		case ctx.Err() != nil || unsent(err) || permanent(err):
			return ""
		case errors.As(err, &cut):
			return "timeout"
		}
		return "connection"
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return "429"
	case http.StatusBadGateway:
		return "502"
	case http.StatusServiceUnavailable:
		return "503"
	case http.StatusGatewayTimeout:
		return "504"
	}
	return ""
}

// unsent reports an error of this package's own, raised before the
// request left: the token could not be had, the bulkhead was full, the
// client is closed, the pattern was misused.
func unsent(err error) bool {
	var bf *BulkheadFullError
	return errorType(err) != "other" || errors.As(err, &bf) || errors.Is(err, errCallerTokenRequired) ||
		errors.Is(err, errNotExchange) || errors.Is(err, errEmptyCallerToken) || errors.Is(err, errBoundBase)
}

// idempotent reports whether req may be sent twice without acting twice:
// an idempotent method (RFC 9110 §9.2.2) or a POST or PATCH carrying an
// Idempotency-Key.
func idempotent(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return (req.Method == http.MethodPost || req.Method == http.MethodPatch) && req.Header.Get("Idempotency-Key") != ""
}

// canReplay reports whether req's body can be sent again.
func canReplay(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// withIdempotencyKey returns req with a fresh Idempotency-Key when add is
// set and req is a POST or PATCH without one; req itself otherwise. The
// caller's request is not modified.
func withIdempotencyKey(req *http.Request, add bool) *http.Request {
	if !add || req.Method != http.MethodPost && req.Method != http.MethodPatch || req.Header.Get("Idempotency-Key") != "" {
		return req
	}
	r := new(http.Request)
	*r = *req
	r.Header = req.Header.Clone()
	if r.Header == nil {
		r.Header = http.Header{}
	}
	r.Header.Set("Idempotency-Key", newIdempotencyKey())
	return r
}

// newIdempotencyKey is a random (version 4) UUID as a structured field
// string, the form draft-ietf-httpapi-idempotency-key-header shows.
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand since Go 1.24)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var s [38]byte
	s[0], s[37] = '"', '"'
	hex.Encode(s[1:9], b[0:4])
	s[9] = '-'
	hex.Encode(s[10:14], b[4:6])
	s[14] = '-'
	hex.Encode(s[15:19], b[6:8])
	s[19] = '-'
	hex.Encode(s[20:24], b[8:10])
	s[24] = '-'
	hex.Encode(s[25:37], b[10:16])
	return string(s[:])
}
