package fxsvc

import (
	"net/http"
	"strings"

	svcerrors "github.com/svckit/svc/modules/errors"
)

// kindNotReady is the 503 of /readyz (see [Health]) while something the
// service needs is not ready, or while it is stopping; docs/errors.md
// documents it under not-ready.
var kindNotReady = svcerrors.Kind{Status: http.StatusServiceUnavailable, Anchor: "not-ready",
	Title: "Not ready", Detail: "The service is not ready to take requests. Retry later."}

// notReady is the answer of a probe that found checks failing. The detail
// names the failing checks (their names only: a check's error may hold a
// URL or a backend's answer, so it never reaches the wire), and the checks
// member (RFC 9457 only) lists them. checks holds names the service chose,
// never request input.
type notReady struct{ checks []string }

func (e *notReady) Error() string { return "svc: not ready: " + strings.Join(e.checks, ", ") }

// Describe implements svcerrors.Rejection.
func (e *notReady) Describe() svcerrors.Description {
	d := svcerrors.Description{Kind: kindNotReady}
	if len(e.checks) > 0 {
		d.Detail = "Not ready: " + strings.Join(e.checks, ", ") + ". Retry later."
		d.Extensions = []svcerrors.Member{{Name: "checks", Value: append([]string(nil), e.checks...)}}
	}
	return d
}
