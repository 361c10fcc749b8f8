// Package actorhook lets fxsvc give an exchange pattern of
// modules/oauthclient the actor SVC_TOKENEXCHANGE_<NAME>_ACTOR names as
// that variable, not as oauthclient.Actor in code: an actor option in code
// then replaces it (options override the environment) instead of being
// refused as a second actor, and its errors name the variable.
//
// Package oauthclient sets EnvActor in its init; fxsvc imports oauthclient
// (it holds the *oauthclient.Pattern it passes), so EnvActor is set before
// anything calls it. The values are passed as any because this package
// sits below oauthclient and cannot name its types; a value of another
// type is a defect of svc and panics.
package actorhook

// EnvActor is oauthclient.Actor(from) set by the environment variable
// setting: from is an *oauthclient.Pattern, the result an
// oauthclient.PatternOption.
var EnvActor func(setting string, from any) any
