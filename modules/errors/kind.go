package svcerrors

import (
	"net/http"

	"github.com/svckit/svc/internal/upstreamkind"
)

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
	// DocsURL is the page that documents this kind, for an app's own kinds:
	// the problem `type` becomes DocsURL#Anchor and a TMF630
	// referenceError takes it in place of {errors_doc_url}. Empty means the
	// format's docs URL ([DocsURL], by default svc's own page), which
	// documents only svc's kinds.
	DocsURL string
}

// The anchors of the kinds this package renders: clients branch on these
// values, which docs/errors.md documents.
const (
	anchorRateLimitExceeded    = "rate-limit-exceeded"
	anchorCircuitBreakerOpen   = "circuit-breaker-open"
	anchorBulkheadFull         = "bulkhead-full"
	anchorLockUnavailable      = "lock-unavailable"
	anchorRequestRefused       = "request-refused"
	anchorDeadlineExceeded     = "deadline-exceeded"
	anchorIdempotencyKeyReused = "idempotency-key-reused"
	anchorIdempotencyInFlight  = "idempotency-in-flight"
	anchorPreconditionFailed   = "precondition-failed"
	anchorPreconditionRequired = "precondition-required"
	anchorValidationFailed     = "validation-failed"
)

// Kinds of docs/errors.md, one per rejection type. Details never name the limit, the
// backend or the rule behind a rejection.
var (
	kindRateLimitExceeded = Kind{Status: http.StatusTooManyRequests, Anchor: anchorRateLimitExceeded,
		Title: "Rate limit exceeded", Detail: "Too many requests. Retry after the time given."}
	kindCircuitBreakerOpen = Kind{Status: http.StatusServiceUnavailable, Anchor: anchorCircuitBreakerOpen,
		Title: "Circuit breaker open", Detail: "A dependency of this service is unavailable. Retry later."}
	kindBulkheadFull = Kind{Status: http.StatusServiceUnavailable, Anchor: anchorBulkheadFull,
		Title: "Concurrency limit reached", Detail: "The service is handling as many requests as it can. Retry later."}
	kindWouldBlock = Kind{Status: http.StatusServiceUnavailable, Anchor: anchorLockUnavailable,
		Title: "Lock held elsewhere", Detail: "The resource is locked and the request asked not to wait."}
	kindLockTimeout = Kind{Status: http.StatusServiceUnavailable, Anchor: anchorLockUnavailable,
		Title: "Lock held elsewhere", Detail: "The resource stayed locked for as long as the request could wait."}
	kindRequestRefused = Kind{Status: http.StatusServiceUnavailable, Anchor: anchorRequestRefused,
		Title: "Request refused", Detail: "The service cannot take this request now. Retry later."}
	kindDeadlineExceeded = Kind{Status: http.StatusGatewayTimeout, Anchor: anchorDeadlineExceeded,
		Title: "Deadline exceeded", Detail: "The request did not complete within its time limit."}
	kindIdempotencyKeyReused = Kind{Status: http.StatusUnprocessableEntity, Anchor: anchorIdempotencyKeyReused,
		Title: "Idempotency key reused", Detail: "This Idempotency-Key was already used with a different payload."}
	kindIdempotencyInFlight = Kind{Status: http.StatusConflict, Anchor: anchorIdempotencyInFlight,
		Title: "Idempotent request in flight", Detail: "A request with this Idempotency-Key is still running. Retry after the time given."}
	kindPreconditionFailed = Kind{Status: http.StatusPreconditionFailed, Anchor: anchorPreconditionFailed,
		Title: "Precondition failed", Detail: "The entity tag in If-Match does not match the current representation."}
	kindPreconditionRequired = Kind{Status: http.StatusPreconditionRequired, Anchor: anchorPreconditionRequired,
		Title: "Precondition required", Detail: "This write must carry a precondition such as If-Match."}
	kindValidationFailed = Kind{Status: http.StatusUnprocessableEntity, Anchor: anchorValidationFailed,
		Title: "Validation failed", Detail: "The request did not match what this endpoint accepts."}
)

// Kinds of outbound token failures (modules/oauthclient), named through
// internal/upstreamkind. Their details say nothing of the
// authorization server's answer or the client's credentials.
var (
	// kindUpstreamTokenUnavailable: the authorization server is down, slow,
	// failing or asked for a pause; retrying later can help.
	kindUpstreamTokenUnavailable = Kind{Status: http.StatusServiceUnavailable, Anchor: upstreamkind.Unavailable,
		Title: "Upstream token unavailable", Detail: "The service could not obtain a token for a call it depends on. Retry later."}
	// kindUpstreamTokenRefused: the authorization server refused the
	// service's client or the token it asked for; retrying will not help
	// until the service's configuration changes.
	kindUpstreamTokenRefused = Kind{Status: http.StatusBadGateway, Anchor: upstreamkind.Refused,
		Title: "Upstream token refused", Detail: "The authorization server refused the token this service needs for a call it depends on."}
)

// namedKinds are the kinds internal/upstreamkind may name.
var namedKinds = map[string]Kind{
	upstreamkind.Unavailable:  kindUpstreamTokenUnavailable,
	upstreamkind.Refused:      kindUpstreamTokenRefused,
	upstreamkind.BulkheadFull: kindBulkheadFull,
}

// kindByAnchor returns the kind of an anchor internal/upstreamkind names:
// upstream-token-unavailable, upstream-token-refused or bulkhead-full. ok
// is false for any other anchor.
func kindByAnchor(anchor string) (k Kind, ok bool) {
	k, ok = namedKinds[anchor]
	return k, ok
}

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
