package oauthclient

import (
	"context"
	"math"
	"time"
)

// Resilience makes a pattern's requests (its Transport, TransportFor,
// Client and ClientFor) survive an API that fails now and then, and spare
// one that fails for good: pass it to a pattern constructor, as
// oauthclient.Resilience{} for the defaults. Zero fields take their
// defaults.
//
// Retries. A request is sent again after a connection error (no answer,
// or an attempt AttemptTimeout cut), a 502, 503 or 504, or a 429 — only for GET, HEAD, OPTIONS, PUT and
// DELETE (idempotent, RFC 9110 §9.2.2) or a POST or PATCH carrying an
// Idempotency-Key, and only when its body can be sent again (none, or
// Request.GetBody set, as http.NewRequest does for in-memory bodies). It
// waits as the server asks (Retry-After, RFC 9110 §10.2.3; else the t of
// an exhausted quota in RateLimit, draft-ietf-httpapi-ratelimit-headers),
// else an exponential backoff with full jitter. It never waits past the
// request context's deadline: when the wait and one more attempt (as long
// as the last took) do not fit before it, the last answer is returned at
// once. What no repeat can mend is sent once and does not count toward
// the breaker: a host name that does not exist (a DNS not-found), a
// certificate that does not verify, a scheme or header the transport
// cannot send (as go-retryablehttp classifies them). Retries to a host
// are held to a budget: RetryBudget of the
// requests of the last Window, plus MinRetries, so that an API that is
// down receives at most that many more requests than the callers make.
//
// Breaker. Each host (and port) the pattern calls has a circuit breaker: when at
// least MinRequests were answered in the last Window and FailureRate of
// them failed (no answer, or a 5xx), it opens, and for OpenFor every
// request to that host fails at once, unsent, with a
// [*CircuitOpenError] (a handler returning it answers 503
// circuit-breaker-open with retry_after, docs/errors.md). Then one request
// goes through as a probe: its success closes the breaker, its failure
// opens it for OpenFor again. A 401 or 4xx is an answer, not a failure.
//
// A token that cannot be had, or an API's 401, is handled as without
// Resilience and never retried here: the client's failure memory and the
// token transport's one repeat after invalid_token apply.
//
// Every attempt sent is its own client span (http.request.resend_count on
// the repeats) and counts in http.client.request.duration; the request's
// span gets the event svc.oauthclient.retry for each retry. Retries and
// refusals count in svc.oauthclient.retries and
// svc.oauthclient.breaker.refusals, breaker states in
// svc.oauthclient.breaker.state, each with server.address and
// server.port (see docs/oauthclient.md).
//
// A pattern constructor refuses (with a [*ConfigError] naming the field)
// a negative duration or count, and a share above 1.
type Resilience struct {
	// MaxAttempts bounds the attempts of one request, the first
	// included (default 3); 1 turns retries off.
	MaxAttempts int
	// RetryBudget is the share of a host's requests of the last Window
	// that may be retried (default 0.1, one retry per ten requests).
	RetryBudget float64
	// MinRetries is how many retries to a host the last Window allows
	// whatever the traffic (default 10), so that a quiet client retries
	// too.
	MinRetries int
	// Backoff is the first retry's longest wait; each retry doubles it,
	// and the wait is drawn at random below it (full jitter). Default
	// 50 ms.
	Backoff time.Duration
	// MaxWait caps every wait between attempts (default 2 s). A server
	// asking for a longer pause (Retry-After, RateLimit) gets its answer
	// returned to the caller rather than waited for.
	MaxWait time.Duration
	// AttemptTimeout, when set, bounds each attempt until its answer (the
	// status line and headers; the body is read under the request's own
	// context), the wait for its token included, so that one hung
	// attempt does not spend the request's whole deadline. An attempt it
	// cuts is a failure for the breaker and is retried as a lost
	// connection is (error.type timeout); when it is the last, the
	// request fails with an error that is a timeout
	// (context.DeadlineExceeded) naming the field. Default 0: none, only
	// the request's context bounds an attempt. Where it is 0 in code,
	// SVC_CLIENTCREDENTIALS_<NAME>_RESILIENCE_ATTEMPT_TIMEOUT
	// (SVC_TOKENEXCHANGE_… for an exchange) sets it.
	AttemptTimeout time.Duration
	// IdempotencyKeys gives every POST and PATCH without an
	// Idempotency-Key a fresh random one (a UUID, sent as a structured
	// field string, draft-ietf-httpapi-idempotency-key-header), the same
	// on each attempt, so that they are retried too. An API that does not
	// deduplicate by that header may then act twice on one request.
	IdempotencyKeys bool

	// NoBreaker turns the breakers off; retries stay.
	NoBreaker bool
	// FailureRate is the share of failed answers that opens a breaker
	// (default 0.5).
	FailureRate float64
	// MinRequests is how many answers of the last Window a breaker needs
	// before it judges the failure rate (default 20).
	MinRequests int
	// OpenFor is how long an open breaker refuses before its probe
	// (default 5 s).
	OpenFor time.Duration
	// Window is how far back the failure rate and the retry budget look
	// (default 10 s).
	Window time.Duration
	// MaxHosts bounds the hosts tracked (default 8): the pattern's API and
	// the hosts it redirects to. Further hosts share one budget and have
	// no breaker.
	MaxHosts int
	// Degraded makes fxsvc.Health name the pattern on /readyz while one of
	// its breakers is open, as degraded: the probe still answers 200, so
	// that an instance whose dependency is down is not taken out of
	// service for it.
	Degraded bool

	// sleep waits between attempts; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

// Defaults of [Resilience].
const (
	defaultMaxAttempts = 3
	defaultRetryBudget = 0.1
	defaultMinRetries  = 10
	defaultBackoff     = 50 * time.Millisecond
	defaultMaxWait     = 2 * time.Second
	defaultFailureRate = 0.5
	defaultMinRequests = 20
	defaultOpenFor     = 5 * time.Second
	defaultWindow      = 10 * time.Second
	defaultMaxHosts    = 8
	minWindow          = 100 * time.Millisecond
)

func (r Resilience) applyPattern(c *patternConfig) error {
	checks := []struct {
		field string
		bad   bool
	}{
		{"MaxAttempts", r.MaxAttempts < 0},
		{"RetryBudget", r.RetryBudget < 0 || r.RetryBudget > 1 || math.IsNaN(r.RetryBudget)},
		{"MinRetries", r.MinRetries < 0},
		{"Backoff", r.Backoff < 0},
		{"MaxWait", r.MaxWait < 0},
		{"AttemptTimeout", r.AttemptTimeout < 0},
		{"FailureRate", r.FailureRate < 0 || r.FailureRate > 1 || math.IsNaN(r.FailureRate)},
		{"MinRequests", r.MinRequests < 0},
		{"OpenFor", r.OpenFor < 0},
		{"Window", r.Window < 0 || r.Window > 0 && r.Window < minWindow},
		{"MaxHosts", r.MaxHosts < 0},
	}
	for _, ch := range checks {
		if ch.bad {
			return &ConfigError{Setting: "oauthclient.Resilience." + ch.field, Problem: "must not be negative; a share (RetryBudget, FailureRate) is at most 1, a Window at least " + minWindow.String()}
		}
	}
	r = r.withDefaults()
	c.resilience = &r
	return nil
}

// withDefaults fills the zero fields.
func (r Resilience) withDefaults() Resilience {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	def(&r.MaxAttempts, defaultMaxAttempts)
	def(&r.MinRetries, defaultMinRetries)
	def(&r.MinRequests, defaultMinRequests)
	def(&r.MaxHosts, defaultMaxHosts)
	defDur(&r.Backoff, defaultBackoff)
	defDur(&r.MaxWait, defaultMaxWait)
	defDur(&r.OpenFor, defaultOpenFor)
	defDur(&r.Window, defaultWindow)
	if r.RetryBudget == 0 {
		r.RetryBudget = defaultRetryBudget
	}
	if r.FailureRate == 0 {
		r.FailureRate = defaultFailureRate
	}
	if r.sleep == nil {
		r.sleep = sleepCtx
	}
	return r
}

// sleepCtx waits d or until ctx ends, whichever comes first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
