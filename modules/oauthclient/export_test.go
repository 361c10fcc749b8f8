package oauthclient

import (
	"context"
	"net/http"
	"time"
)

// WithJitter replaces the random refresh jitter, so tests can pin it.
func WithJitter(f func(max time.Duration) time.Duration) Option {
	return clientOption(func(c *clientConfig) error { c.jitter = f; return nil })
}

// InFlight reports whether a fetch for the client-credentials token, or
// for the exchange of caller, is running.
func InFlight(p *Pattern, caller string) bool {
	s := &p.slot
	if caller != "" {
		s = p.exchange.slot(p.exchangeKey(caller))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fl != nil
}

// ExchangeCacheLen is the number of entries in an exchange cache.
func ExchangeCacheLen(p *Pattern) int { return p.exchange.len() }

var (
	JWTExpiry = jwtExpiry
	ErrorType = errorType
)

var (
	ErrCallerTokenRequired = errCallerTokenRequired
	ErrNotExchange         = errNotExchange
	ErrEmptyCallerToken    = errEmptyCallerToken
	ErrDPoPTokenSource     = errDPoPTokenSource
	ErrNotDiscovered       = errNotDiscovered
)

// InvalidTokenChallenge reports whether h holds a Bearer invalid_token
// challenge.
func InvalidTokenChallenge(h http.Header) bool { return challengeError(h, "Bearer") == "invalid_token" }

// Sleeping makes r's waits between attempts call f instead of sleeping.
func Sleeping(r Resilience, f func(context.Context, time.Duration) error) Resilience {
	r.sleep = f
	return r
}

// The reasons an UnavailableError carries, for tests that compare them.
const (
	ReasonTimeout     = reasonTimeout
	ReasonConnection  = reasonConnection
	ReasonServerError = reasonServerError
	ReasonRetryAfter  = reasonRetryAfter
	ReasonBadResponse = reasonBadResponse
	ReasonAssertion   = reasonAssertion
)

// AttemptTimeout is the AttemptTimeout of p's Resilience; 0 without one.
func AttemptTimeout(p *Pattern) time.Duration {
	if p.resilience == nil {
		return 0
	}
	return p.resilience.AttemptTimeout
}
