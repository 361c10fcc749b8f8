package svcerrors

import (
	"context"
	"net/http"
	"time"
)

// RateLimitExceeded: the caller is over a rate limiter's budget. Answers 429
// rate-limit-exceeded with retry_after.
type RateLimitExceeded struct{ RetryAfter time.Duration }

func (e *RateLimitExceeded) Error() string { return "svc: rate limit exceeded" }

// Describe implements [Rejection].
func (e *RateLimitExceeded) Describe() Description {
	return Description{Kind: kindRateLimitExceeded, RetryAfter: e.RetryAfter}
}

// CircuitBreakerOpen: the breaker in front of a dependency is open. Answers
// 503 circuit-breaker-open; RetryAfter is the time until the next probe and
// is omitted when zero (an operator forced the breaker open).
type CircuitBreakerOpen struct{ RetryAfter time.Duration }

func (e *CircuitBreakerOpen) Error() string { return "svc: circuit breaker open" }

// Describe implements [Rejection].
func (e *CircuitBreakerOpen) Describe() Description {
	return Description{Kind: kindCircuitBreakerOpen, RetryAfter: e.RetryAfter}
}

// BulkheadFull: the bulkhead has no free permit. Answers 503 bulkhead-full
// with no retry hint.
type BulkheadFull struct{}

func (e *BulkheadFull) Error() string { return "svc: bulkhead full" }

// Describe implements [Rejection].
func (e *BulkheadFull) Describe() Description { return Description{Kind: kindBulkheadFull} }

// WouldBlock: a lock acquire was asked not to wait and did not get in.
// Answers 503 lock-unavailable.
type WouldBlock struct{}

func (e *WouldBlock) Error() string { return "svc: lock held elsewhere, would block" }

// Describe implements [Rejection].
func (e *WouldBlock) Describe() Description { return Description{Kind: kindWouldBlock} }

// LockTimeout: a lock acquire waited and ran out of time. Answers 503
// lock-unavailable. It satisfies errors.Is(err, context.DeadlineExceeded),
// so code that checks for a timeout still sees one.
type LockTimeout struct{}

func (e *LockTimeout) Error() string { return "svc: lock held elsewhere, wait timed out" }

// Describe implements [Rejection].
func (e *LockTimeout) Describe() Description { return Description{Kind: kindLockTimeout} }

// Is reports a LockTimeout as a context.DeadlineExceeded.
func (e *LockTimeout) Is(target error) bool { return target == context.DeadlineExceeded }

// AdmissionRefused is the catch-all turn-away. Answers 503 request-refused.
// A kind of turn-away with no type of its own wraps it (fmt.Errorf with %w)
// and answers the same; its own message never reaches the wire.
type AdmissionRefused struct{}

func (e *AdmissionRefused) Error() string { return "svc: request refused" }

// Describe implements [Rejection].
func (e *AdmissionRefused) Describe() Description { return Description{Kind: kindRequestRefused} }

// DeadlineExceeded: a timeout policy's deadline elapsed. Answers 504
// deadline-exceeded with the timeout member. It satisfies
// errors.Is(err, context.DeadlineExceeded).
type DeadlineExceeded struct{ Timeout time.Duration }

func (e *DeadlineExceeded) Error() string { return "svc: deadline exceeded" }

// Describe implements [Rejection].
func (e *DeadlineExceeded) Describe() Description {
	return Description{Kind: kindDeadlineExceeded, Timeout: e.Timeout}
}

// Is reports a DeadlineExceeded as a context.DeadlineExceeded.
func (e *DeadlineExceeded) Is(target error) bool { return target == context.DeadlineExceeded }

// IdempotencyConflict: the same Idempotency-Key came with a different
// payload. Answers 422 idempotency-key-reused.
type IdempotencyConflict struct{}

func (e *IdempotencyConflict) Error() string { return "svc: idempotency key reused" }

// Describe implements [Rejection].
func (e *IdempotencyConflict) Describe() Description {
	return Description{Kind: kindIdempotencyKeyReused}
}

// IdempotencyWaitTimeout: a request with the same key is still running and
// the wait ran out. Answers 409 idempotency-in-flight with retry_after.
type IdempotencyWaitTimeout struct{ RetryAfter time.Duration }

func (e *IdempotencyWaitTimeout) Error() string { return "svc: idempotent request in flight" }

// Describe implements [Rejection].
func (e *IdempotencyWaitTimeout) Describe() Description {
	return Description{Kind: kindIdempotencyInFlight, RetryAfter: e.RetryAfter}
}

// PreconditionFailed: the entity tag in If-Match is stale. Answers 412.
type PreconditionFailed struct{}

func (e *PreconditionFailed) Error() string { return "svc: precondition failed" }

// Describe implements [Rejection].
func (e *PreconditionFailed) Describe() Description {
	return Description{Kind: kindPreconditionFailed}
}

// PreconditionRequired: a write carried no precondition. Answers 428.
type PreconditionRequired struct{}

func (e *PreconditionRequired) Error() string { return "svc: precondition required" }

// Describe implements [Rejection].
func (e *PreconditionRequired) Describe() Description {
	return Description{Kind: kindPreconditionRequired}
}

// ValidationFailed: the request did not match what the endpoint accepts.
// It answers Status (default 422; a router without its own convention may
// pick 400) validation-failed with one entry per part that did not match.
type ValidationFailed struct {
	Status int
	Errors []FieldError
}

func (e *ValidationFailed) Error() string { return "svc: request validation failed" }

// Describe implements [Rejection].
func (e *ValidationFailed) Describe() Description {
	k := kindValidationFailed
	if e.Status >= 400 && e.Status <= 499 {
		k.Status = e.Status
	}
	return Description{Kind: k, Errors: e.Errors}
}

// HTTPError is a plain HTTP error the way a router raises one: it keeps
// its status and headers (Allow on a 405, WWW-Authenticate on a 401), and
// renders with type about:blank. Only the body shape is the service's.
type HTTPError struct {
	Status int
	Header http.Header
}

func (e *HTTPError) Error() string { return "svc: HTTP " + http.StatusText(e.Status) }

// Describe implements [Rejection].
func (e *HTTPError) Describe() Description {
	status := e.Status
	if status < 400 || status > 599 {
		status = http.StatusInternalServerError
	}
	return Description{Kind: frameworkKind(status), Header: e.Header}
}
