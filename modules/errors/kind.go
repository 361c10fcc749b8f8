package svcerrors

import "net/http"

// Kind is one kind of error answer: its status, the anchor of its `type`
// URI and the texts the service writes for it.
type Kind struct {
	Status int
	// Anchor names the kind in the errors documentation; the problem `type`
	// is {errors_doc_url}#Anchor. Empty means a framework error, whose type
	// is about:blank.
	Anchor string
	Title  string
	Detail string
}

// The anchors of the kinds this package renders. Clients branch on them.
const (
	AnchorRateLimitExceeded     = "rate-limit-exceeded"
	AnchorCircuitBreakerOpen    = "circuit-breaker-open"
	AnchorBulkheadFull          = "bulkhead-full"
	AnchorLockUnavailable       = "lock-unavailable"
	AnchorRequestRefused        = "request-refused"
	AnchorDeadlineExceeded      = "deadline-exceeded"
	AnchorIdempotencyKeyReused  = "idempotency-key-reused"
	AnchorIdempotencyInFlight   = "idempotency-in-flight"
	AnchorIdempotencyKeyInvalid = "idempotency-key-invalid"
	AnchorRequestBodyTooLarge   = "request-body-too-large"
	AnchorPreconditionFailed    = "precondition-failed"
	AnchorPreconditionRequired  = "precondition-required"
	AnchorValidationFailed      = "validation-failed"
)

// Kinds of the spec's rejection table. Details never name the limit, the
// backend or the rule behind a rejection.
var (
	KindRateLimitExceeded = Kind{http.StatusTooManyRequests, AnchorRateLimitExceeded,
		"Rate limit exceeded", "Too many requests. Retry after the time given."}
	KindCircuitBreakerOpen = Kind{http.StatusServiceUnavailable, AnchorCircuitBreakerOpen,
		"Circuit breaker open", "A dependency of this service is unavailable. Retry later."}
	KindBulkheadFull = Kind{http.StatusServiceUnavailable, AnchorBulkheadFull,
		"Concurrency limit reached", "The service is handling as many requests as it can. Retry later."}
	KindWouldBlock = Kind{http.StatusServiceUnavailable, AnchorLockUnavailable,
		"Lock held elsewhere", "The resource is locked and the request asked not to wait."}
	KindLockTimeout = Kind{http.StatusServiceUnavailable, AnchorLockUnavailable,
		"Lock held elsewhere", "The resource stayed locked for as long as the request could wait."}
	KindRequestRefused = Kind{http.StatusServiceUnavailable, AnchorRequestRefused,
		"Request refused", "The service cannot take this request now. Retry later."}
	KindDeadlineExceeded = Kind{http.StatusGatewayTimeout, AnchorDeadlineExceeded,
		"Deadline exceeded", "The request did not complete within its time limit."}
	KindIdempotencyKeyReused = Kind{http.StatusUnprocessableEntity, AnchorIdempotencyKeyReused,
		"Idempotency key reused", "This Idempotency-Key was already used with a different payload."}
	KindIdempotencyInFlight = Kind{http.StatusConflict, AnchorIdempotencyInFlight,
		"Idempotent request in flight", "A request with this Idempotency-Key is still running. Retry after the time given."}
	KindIdempotencyKeyInvalid = Kind{http.StatusBadRequest, AnchorIdempotencyKeyInvalid,
		"Idempotency key invalid", "The Idempotency-Key header is missing, too long or holds a character outside printable ASCII."}
	KindRequestBodyTooLarge = Kind{http.StatusRequestEntityTooLarge, AnchorRequestBodyTooLarge,
		"Request body too large", "The request body is larger than this endpoint accepts."}
	KindPreconditionFailed = Kind{http.StatusPreconditionFailed, AnchorPreconditionFailed,
		"Precondition failed", "The entity tag in If-Match does not match the current representation."}
	KindPreconditionRequired = Kind{http.StatusPreconditionRequired, AnchorPreconditionRequired,
		"Precondition required", "This write must carry a precondition such as If-Match."}
	KindValidationFailed = Kind{http.StatusUnprocessableEntity, AnchorValidationFailed,
		"Validation failed", "The request did not match what this endpoint accepts."}
)

// frameworkKind is the kind of a router or net/http error of the given
// status: type about:blank, the status text as title, and a detail the
// service writes (the router's own text may quote the request).
func frameworkKind(status int) Kind {
	title := http.StatusText(status)
	if title == "" {
		title = "Error"
	}
	detail, ok := frameworkDetails[status]
	if !ok {
		if status >= 500 {
			detail = "The server could not complete the request."
		} else {
			detail = "The request cannot be served as sent."
		}
	}
	return Kind{Status: status, Title: title, Detail: detail}
}

var frameworkDetails = map[int]string{
	http.StatusBadRequest:            "The request is malformed.",
	http.StatusUnauthorized:          "This resource requires authentication.",
	http.StatusForbidden:             "The caller may not access this resource.",
	http.StatusNotFound:              "No resource answers at this URL.",
	http.StatusMethodNotAllowed:      "This resource does not serve that method; see the Allow header.",
	http.StatusNotAcceptable:         "No representation matches the Accept header.",
	http.StatusRequestEntityTooLarge: "The request body is too large.",
	http.StatusUnsupportedMediaType:  "The request body's media type is not supported here.",
	http.StatusInternalServerError:   "The server could not complete the request.",
	http.StatusNotImplemented:        "The server does not support this request.",
	http.StatusBadGateway:            "An upstream service answered badly.",
	http.StatusServiceUnavailable:    "The service is unavailable. Retry later.",
	http.StatusGatewayTimeout:        "An upstream service did not answer in time.",
}
