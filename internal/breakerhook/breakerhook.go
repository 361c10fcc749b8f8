// Package breakerhook lets fxsvc ask a pattern of modules/oauthclient
// built with oauthclient.Resilience which hosts its circuit breakers
// refuse, for /readyz, without oauthclient exporting a method no app
// needs.
//
// Package oauthclient sets Tripped in its init; fxsvc imports oauthclient
// (it holds the *oauthclient.Pattern it passes), so Tripped is set before
// anything reads it. The pattern is passed as any because this package
// sits below oauthclient and cannot name its types; a value that is not
// an *oauthclient.Pattern is a defect of svc and panics.
package breakerhook

// Tripped lists, sorted, the hosts (server.address) whose breaker of the
// pattern is open or waits for its probe; none for a pattern without
// breakers.
var Tripped func(pattern any) []string

// Degraded reports whether the pattern was built with a Resilience whose
// open breakers should show on /readyz as degraded (Resilience.Degraded,
// or SVC_..._<NAME>_RESILIENCE=degraded).
var Degraded func(pattern any) bool
