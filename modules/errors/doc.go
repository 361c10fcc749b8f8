// Package svcerrors renders every error a service answers with in one
// standard body: RFC 9457 problem details (the default) or the TM Forum
// TMF630 error format.
//
// Import it as svcerrors:
//
//	import svcerrors "github.com/svckit/svc/modules/errors"
//
// Three things make up the package:
//
//   - Rejection types ([RateLimitExceeded], [DeadlineExceeded], …): errors a
//     service returns when it turns a request away. Each knows its status,
//     its `type` anchor and its extension members, and is found through
//     wrapping with errors.As. A turn-away with no type of its own wraps
//     [AdmissionRefused] and answers 503 request-refused.
//   - [Responses]: the registered format. [Responses.Render] turns an error
//     into a [Rendered] response; [Responses.Middleware] puts the format in
//     the request context and re-shapes the router's own plain-text errors
//     (404, 405, http.Error) into the format, keeping their status and
//     headers.
//   - [Handler], [Refuse], [Respond] and [On]: how code hands errors to the
//     format. A handler returns its error through [Handler]; a middleware
//     or gate that turns a request away calls [Refuse]; a status with the
//     service's own detail and no error value goes through [Respond]; [On]
//     registers the app's own answer to an error type.
//     [Responses.ServeError] is for adapters that write elsewhere than the
//     request's connection (docs/errors.md has the table).
//
// The `detail` member is always written by the service. An error's own
// message never reaches the wire: it may carry a backend name, a limit, a
// secret or echoed input.
package svcerrors
