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
	// DocsURL is the page that documents this kind, for an app's own kinds:
	// the problem `type` becomes DocsURL#Anchor and a TMF630
	// referenceError takes it in place of {errors_doc_url}. Empty means the
	// format's docs URL ([DocsURL], by default svc's own page), which
	// documents only svc's kinds.
	DocsURL string
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

	AnchorUpstreamTokenUnavailable = "upstream-token-unavailable"
	AnchorUpstreamTokenRefused     = "upstream-token-refused"
)

// Kinds of docs/errors.md, one per rejection type. Details never name the limit, the
// backend or the rule behind a rejection.
var (
	KindRateLimitExceeded = Kind{Status: http.StatusTooManyRequests, Anchor: AnchorRateLimitExceeded,
		Title: "Rate limit exceeded", Detail: "Too many requests. Retry after the time given."}
	KindCircuitBreakerOpen = Kind{Status: http.StatusServiceUnavailable, Anchor: AnchorCircuitBreakerOpen,
		Title: "Circuit breaker open", Detail: "A dependency of this service is unavailable. Retry later."}
	KindBulkheadFull = Kind{Status: http.StatusServiceUnavailable, Anchor: AnchorBulkheadFull,
		Title: "Concurrency limit reached", Detail: "The service is handling as many requests as it can. Retry later."}
	KindWouldBlock = Kind{Status: http.StatusServiceUnavailable, Anchor: AnchorLockUnavailable,
		Title: "Lock held elsewhere", Detail: "The resource is locked and the request asked not to wait."}
	KindLockTimeout = Kind{Status: http.StatusServiceUnavailable, Anchor: AnchorLockUnavailable,
		Title: "Lock held elsewhere", Detail: "The resource stayed locked for as long as the request could wait."}
	KindRequestRefused = Kind{Status: http.StatusServiceUnavailable, Anchor: AnchorRequestRefused,
		Title: "Request refused", Detail: "The service cannot take this request now. Retry later."}
	KindDeadlineExceeded = Kind{Status: http.StatusGatewayTimeout, Anchor: AnchorDeadlineExceeded,
		Title: "Deadline exceeded", Detail: "The request did not complete within its time limit."}
	KindIdempotencyKeyReused = Kind{Status: http.StatusUnprocessableEntity, Anchor: AnchorIdempotencyKeyReused,
		Title: "Idempotency key reused", Detail: "This Idempotency-Key was already used with a different payload."}
	KindIdempotencyInFlight = Kind{Status: http.StatusConflict, Anchor: AnchorIdempotencyInFlight,
		Title: "Idempotent request in flight", Detail: "A request with this Idempotency-Key is still running. Retry after the time given."}
	KindIdempotencyKeyInvalid = Kind{Status: http.StatusBadRequest, Anchor: AnchorIdempotencyKeyInvalid,
		Title: "Idempotency key invalid", Detail: "The Idempotency-Key header is missing, too long or holds a character outside printable ASCII."}
	KindRequestBodyTooLarge = Kind{Status: http.StatusRequestEntityTooLarge, Anchor: AnchorRequestBodyTooLarge,
		Title: "Request body too large", Detail: "The request body is larger than this endpoint accepts."}
	KindPreconditionFailed = Kind{Status: http.StatusPreconditionFailed, Anchor: AnchorPreconditionFailed,
		Title: "Precondition failed", Detail: "The entity tag in If-Match does not match the current representation."}
	KindPreconditionRequired = Kind{Status: http.StatusPreconditionRequired, Anchor: AnchorPreconditionRequired,
		Title: "Precondition required", Detail: "This write must carry a precondition such as If-Match."}
	KindValidationFailed = Kind{Status: http.StatusUnprocessableEntity, Anchor: AnchorValidationFailed,
		Title: "Validation failed", Detail: "The request did not match what this endpoint accepts."}
)

// Kinds of outbound token failures (modules/oauthclient), named by the
// errors through [KindNamer]. Their details say nothing of the
// authorization server's answer or the client's credentials.
var (
	// KindUpstreamTokenUnavailable: the authorization server is down, slow,
	// failing or asked for a pause; retrying later can help.
	KindUpstreamTokenUnavailable = Kind{Status: http.StatusServiceUnavailable, Anchor: AnchorUpstreamTokenUnavailable,
		Title: "Upstream token unavailable", Detail: "The service could not obtain a token for a call it depends on. Retry later."}
	// KindUpstreamTokenRefused: the authorization server refused the
	// service's client or the token it asked for; retrying will not help
	// until the service's configuration changes.
	KindUpstreamTokenRefused = Kind{Status: http.StatusBadGateway, Anchor: AnchorUpstreamTokenRefused,
		Title: "Upstream token refused", Detail: "The authorization server refused the token this service needs for a call it depends on."}
)

// namedKinds are the kinds a [KindNamer] may name.
var namedKinds = map[string]Kind{
	AnchorUpstreamTokenUnavailable: KindUpstreamTokenUnavailable,
	AnchorUpstreamTokenRefused:     KindUpstreamTokenRefused,
}

// KindByAnchor returns the kind a [KindNamer] naming anchor answers with:
// upstream-token-unavailable or upstream-token-refused. ok is false for any
// other anchor.
func KindByAnchor(anchor string) (k Kind, ok bool) {
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
