package svcerrors

import (
	"net/http"
	"time"
)

// Rejection is an error that knows how the service answers it. Every
// rejection type of this package implements it, and so may any other
// package's turn-away (the authentication gate's refusals do).
type Rejection interface {
	error
	Describe() Description
}

// Description is what the renderer needs to answer a rejection.
type Description struct {
	Kind
	// Detail, when set, replaces Kind.Detail. It is service-written text.
	Detail string
	// RetryAfter > 0 adds the retry_after member (RFC 9457 only) and the
	// Retry-After header in whole seconds, rounded up (both formats).
	RetryAfter time.Duration
	// Timeout > 0 adds the timeout member (RFC 9457 only), in seconds.
	Timeout time.Duration
	// Errors are validation entries: the errors member (RFC 9457) or the
	// message text (TMF630).
	Errors []FieldError
	// Extensions are further top-level members, RFC 9457 only, in order.
	Extensions []Member
	// Header holds headers the answer must carry, such as WWW-Authenticate.
	Header http.Header
}

// Member is one extension member of a problem body.
type Member struct {
	Name  string
	Value any
}

// FieldError is one entry of a validation failure: where (loc), what is
// wrong (msg) and a machine-readable type. The offending input is never
// echoed.
type FieldError struct {
	Loc  []string `json:"loc"`
	Msg  string   `json:"msg"`
	Type string   `json:"type"`
}

func (d Description) detail() string {
	if d.Detail != "" {
		return d.Detail
	}
	return d.Kind.Detail
}
