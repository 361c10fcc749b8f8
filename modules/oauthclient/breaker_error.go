package oauthclient

import (
	"strconv"
	"time"
)

// CircuitOpenError reports a request a [Resilience] breaker refused
// without sending it: the API's host failed too often lately. A handler
// returning it answers 503 circuit-breaker-open with retry_after (and
// Retry-After) of RetryAfter, rounded up to whole seconds.
type CircuitOpenError struct {
	Pattern    string
	Host       string        // the host refused (server.address), never the URL
	RetryAfter time.Duration // until the next probe
}

func (e *CircuitOpenError) Error() string {
	return "oauthclient: pattern " + strconv.Quote(e.Pattern) + ": the circuit breaker for " + e.Host +
		" is open; the request was not sent (next probe in " + e.RetryAfter.String() + ")"
}
