package idempotency

import (
	"net/http"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// The two refusals only this middleware raises, before it reads or
// records anything. Their kinds are documented in docs/errors.md beside
// svcerrors' own; the two it shares with the spec's table
// (svcerrors.IdempotencyConflict, svcerrors.IdempotencyWaitTimeout) stay
// there.
var (
	kindKeyInvalid = svcerrors.Kind{Status: http.StatusBadRequest, Anchor: "idempotency-key-invalid",
		Title: "Idempotency key invalid", Detail: "The Idempotency-Key header is missing, too long or holds a character outside printable ASCII."}
	kindBodyTooLarge = svcerrors.Kind{Status: http.StatusRequestEntityTooLarge, Anchor: "request-body-too-large",
		Title: "Request body too large", Detail: "The request body is larger than this endpoint accepts."}
)

// keyInvalid: the Idempotency-Key header is missing where required, longer
// than 255 characters, or holds a byte outside printable ASCII. Answers 400
// idempotency-key-invalid.
type keyInvalid struct{}

func (*keyInvalid) Error() string { return "svc: idempotency key invalid" }

func (*keyInvalid) Describe() svcerrors.Description {
	return svcerrors.Description{Kind: kindKeyInvalid}
}

// bodyTooLarge: the body is over MaxBodySize. Answers 413
// request-body-too-large; the limit itself is never named.
type bodyTooLarge struct{}

func (*bodyTooLarge) Error() string { return "svc: request body too large" }

func (*bodyTooLarge) Describe() svcerrors.Description {
	return svcerrors.Description{Kind: kindBodyTooLarge}
}
