// Package reqfacts holds the facts of one request that more than one part
// of svc needs, each worked out in one place: the caller's address behind
// the app's trusted proxies ([Proxies]), the route the request is
// dispatched to ([Route]: the path template, the same for every reader), the path the app's root saw and whether an exclusion
// holds for it ([ExclusionHolds]), and the subject the gate verified.
//
// The outermost telemetry wrapper (modules/telemetry, which fxsvc.Serve
// always installs) puts one [State] in each request's context; the gate,
// its bans, flood limits and security records, the components behind it
// (rate limits, idempotency, conditional requests, the response cache),
// the access log and the spans read it. A request without the wrapper
// carries no State: [ClientAddress] is then the peer, and no forwarding
// header is believed.
//
// It is svc's ground floor: it imports nothing of svc.
package reqfacts
