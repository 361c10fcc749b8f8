// Package requestid names the ID svc gives every request and reads it
// back. It gives none itself: svc's outermost wrapper (modules/telemetry,
// which fxsvc.Serve always installs) takes the caller's X-Request-ID when
// it is well-formed, else makes one (internal/reqid holds how), echoes it
// on the response and carries it in the request context, where the access
// log, the security records, the 500 log line and the server span read it.
// Without that wrapper, From returns "".
//
//	id := requestid.From(r.Context())
package requestid

import (
	"context"

	"github.com/svckit/svc/internal/reqid"
)

// Header is the request and response header carrying the ID.
const Header = "X-Request-ID"

// LogField is the log record field carrying the ID: the Elastic Common
// Schema's http.request.id (OpenTelemetry names none). The access log, the
// security records and the 500 log lines use it, and the server span has
// an attribute of the same name.
const LogField = "http.request.id"

// From returns the request's ID, "" when no telemetry wrapper gave one.
func From(ctx context.Context) string {
	if id, _ := ctx.Value(reqid.Key{}).(*string); id != nil {
		return *id
	}
	return ""
}
