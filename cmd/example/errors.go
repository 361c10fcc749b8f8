package main

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// errorDemo maps each route under /errors/ to the error its handler returns,
// one per rejection type of svcerrors (the idempotency middleware raises
// idempotency-key-invalid and request-body-too-large itself: see /orders).
var errorDemo = map[string]error{
	"rate-limit-exceeded":    &svcerrors.RateLimitExceeded{RetryAfter: 1500 * time.Millisecond},
	"circuit-breaker-open":   &svcerrors.CircuitBreakerOpen{RetryAfter: 30 * time.Second},
	"bulkhead-full":          &svcerrors.BulkheadFull{},
	"would-block":            &svcerrors.WouldBlock{},
	"lock-timeout":           &svcerrors.LockTimeout{},
	"request-refused":        &svcerrors.AdmissionRefused{},
	"deadline-exceeded":      &svcerrors.DeadlineExceeded{Timeout: 2 * time.Second},
	"idempotency-key-reused": &svcerrors.IdempotencyConflict{},
	"idempotency-in-flight":  &svcerrors.IdempotencyWaitTimeout{RetryAfter: 2 * time.Second},
	"precondition-failed":    &svcerrors.PreconditionFailed{},
	"precondition-required":  &svcerrors.PreconditionRequired{},
	"validation-failed": &svcerrors.ValidationFailed{Errors: []svcerrors.FieldError{
		{Loc: []string{"query", "limit"}, Msg: "must be at most 100", Type: "less_than_equal"},
	}},
	// Not a rejection: a bug. Logged, answered 500, its message never sent.
	"unhandled": errUnhandled,
}

var errUnhandled = &internalError{}

type internalError struct{}

func (*internalError) Error() string { return "orders database refused the connection" }

func mountErrorDemo(r chi.Router) {
	r.Route("/errors", func(r chi.Router) {
		r.Method(http.MethodGet, "/{kind}", svcerrors.Handler(func(w http.ResponseWriter, req *http.Request) error {
			err, ok := errorDemo[chi.URLParam(req, "kind")]
			if !ok {
				http.NotFound(w, req) // a router-style error: rendered in the format too
				return nil
			}
			return err
		}))
	})
}
