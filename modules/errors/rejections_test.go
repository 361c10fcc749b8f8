package svcerrors_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// kindCase is one row of the spec's rejection table.
type kindCase struct {
	name       string
	err        error
	status     int
	anchor     string
	retryAfter string // expected Retry-After header, "" for none
}

func rejectionTable() []kindCase {
	return []kindCase{
		{"rate-limit", &svcerrors.RateLimitExceeded{RetryAfter: 1500 * time.Millisecond}, 429, "rate-limit-exceeded", "2"},
		{"circuit-breaker", &svcerrors.CircuitBreakerOpen{RetryAfter: 30 * time.Second}, 503, "circuit-breaker-open", "30"},
		{"circuit-breaker-forced", &svcerrors.CircuitBreakerOpen{}, 503, "circuit-breaker-open", ""},
		{"bulkhead", &svcerrors.BulkheadFull{}, 503, "bulkhead-full", ""},
		{"would-block", &svcerrors.WouldBlock{}, 503, "lock-unavailable", ""},
		{"lock-timeout", &svcerrors.LockTimeout{}, 503, "lock-unavailable", ""},
		{"admission", &svcerrors.AdmissionRefused{}, 503, "request-refused", ""},
		{"deadline", &svcerrors.DeadlineExceeded{Timeout: 2500 * time.Millisecond}, 504, "deadline-exceeded", ""},
		{"idempotency-conflict", &svcerrors.IdempotencyConflict{}, 422, "idempotency-key-reused", ""},
		{"idempotency-wait", &svcerrors.IdempotencyWaitTimeout{RetryAfter: 200 * time.Millisecond}, 409, "idempotency-in-flight", "1"},
		{"idempotency-key-invalid", &svcerrors.IdempotencyKeyInvalid{}, 400, "idempotency-key-invalid", ""},
		{"body-too-large", &svcerrors.RequestBodyTooLarge{}, 413, "request-body-too-large", ""},
		{"precondition-failed", &svcerrors.PreconditionFailed{}, 412, "precondition-failed", ""},
		{"precondition-required", &svcerrors.PreconditionRequired{}, 428, "precondition-required", ""},
		{"validation", &svcerrors.ValidationFailed{Errors: []svcerrors.FieldError{
			{Loc: []string{"body", "name"}, Msg: "field required", Type: "missing"},
			{Loc: []string{"query", "limit"}, Msg: "must be at most 100", Type: "less_than_equal"},
		}}, 422, "validation-failed", ""},
		{"validation-400", &svcerrors.ValidationFailed{Status: 400, Errors: []svcerrors.FieldError{
			{Loc: []string{"path", "id"}, Msg: "must be a UUID", Type: "uuid_parsing"},
		}}, 400, "validation-failed", ""},
		{"admission-kind-without-entry", laterTurnAway{}, 503, "request-refused", ""},
	}
}

// laterTurnAway is a turn-away kind added after this package was written.
type laterTurnAway struct{}

func (laterTurnAway) Error() string { return "queue full: backend=redis-7 limit=500" }
func (laterTurnAway) Admission()    {}

func TestRejectionsAreFoundThroughWrapping(t *testing.T) {
	for _, tc := range rejectionTable() {
		t.Run(tc.name, func(t *testing.T) {
			wrapped := fmt.Errorf("handler: %w", fmt.Errorf("service: %w", tc.err))
			d, ok := svcerrors.Describe(wrapped)
			if !ok {
				t.Fatalf("Describe(%T) not known", tc.err)
			}
			if d.Status != tc.status || d.Anchor != tc.anchor {
				t.Fatalf("got %d %q, want %d %q", d.Status, d.Anchor, tc.status, tc.anchor)
			}
		})
	}
}

func TestTimeoutKindsAreDeadlineExceeded(t *testing.T) {
	for _, err := range []error{&svcerrors.DeadlineExceeded{}, &svcerrors.LockTimeout{}} {
		if !errors.Is(fmt.Errorf("wrapped: %w", err), context.DeadlineExceeded) {
			t.Errorf("%T does not satisfy errors.Is(err, context.DeadlineExceeded)", err)
		}
	}
	for _, err := range []error{&svcerrors.WouldBlock{}, &svcerrors.RateLimitExceeded{}} {
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%T must not read as a deadline", err)
		}
	}
}

func TestNeverRendered(t *testing.T) {
	for _, err := range []error{
		errors.New("backend down"),
		context.DeadlineExceeded, // a bare timeout is left alone
		context.Canceled,
		fmt.Errorf("wrapped: %w", context.DeadlineExceeded),
	} {
		if _, ok := svcerrors.Describe(err); ok {
			t.Errorf("Describe(%v) is known; it must stay unhandled", err)
		}
		out := svcerrors.New().Render(err, "/x")
		if out.Known || out.Status != http.StatusInternalServerError {
			t.Errorf("Render(%v) = %d known=%v, want an unknown 500", err, out.Status, out.Known)
		}
	}
}
