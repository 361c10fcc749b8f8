package svcerrors

import (
	"net/http"
	"strings"
)

// anchorNotReady names the answer of a readiness probe that is not ready.
const anchorNotReady = "not-ready"

// kindNotReady is the 503 of a readiness probe (fxsvc.Health's /readyz)
// while something the service needs is not ready, or while it is stopping.
var kindNotReady = Kind{Status: http.StatusServiceUnavailable, Anchor: anchorNotReady,
	Title: "Not ready", Detail: "The service is not ready to take requests. Retry later."}

// NotReady: a readiness probe found checks failing. Answers 503 not-ready;
// the detail names the failing checks (their names only: a check's error
// may hold a URL or a backend's answer, so it never reaches the wire), and
// the checks member (RFC 9457 only) lists them. Checks holds names the
// service chose, never request input.
type NotReady struct{ Checks []string }

func (e *NotReady) Error() string { return "svc: not ready: " + strings.Join(e.Checks, ", ") }

// Describe implements [Rejection].
func (e *NotReady) Describe() Description {
	d := Description{Kind: kindNotReady}
	if len(e.Checks) > 0 {
		d.Detail = "Not ready: " + strings.Join(e.Checks, ", ") + ". Retry later."
		d.Extensions = []Member{{Name: "checks", Value: append([]string(nil), e.Checks...)}}
	}
	return d
}
