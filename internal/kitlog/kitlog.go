// Package kitlog carries things of package fxsvc through an app's fx
// graph to the kit's wiring that lives apart from it (fxredis, svctest),
// so that a component outside fxsvc logs and starts like one inside: the
// kit's default logger for an app that provides no *zap.Logger, a
// component's part of the start line, where the replicas' shared state
// lives, and the test kit's overrides of fxsvc.Serve's options. It is internal: apps meet none of them.
package kitlog

import (
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Fallback returns the kit's default logger of the app: the one fxsvc.Run
// (or fxsvc.ForTests) built for its components, on its standard error.
// It is in the graph only under those; without it a component builds
// fxsvc.DefaultLogger. Its error is a bad SVC_LOG_* setting.
type Fallback func() (*zap.Logger, error)

// ServeOverrides is the fx value group of fxsvc.ServeOption values that
// fxsvc.Serve applies after its own options and the environment: svctest
// supplies a free loopback port and plain HTTP there, whatever the app's
// options say.
const ServeOverrides = "svc.http.options"

// StartGroup is the fx value group of the start line's parts.
const StartGroup = "svc.start.info"

// StartPart is one component's part of the start line: its name among
// the components and, when it has settings to show, an encoder of them
// that writes no secret as it is (secret.String and secret.URL print ***).
type StartPart struct {
	Name   string
	Encode func(zapcore.ObjectEncoder)
}

// SharedState is where the components behind the gate (rate limits,
// idempotency records, the response cache, bans and flood budgets) keep
// the state an app's replicas share. fxredis.Redis provides it; without
// one each replica keeps its own, in memory. The start line of fxsvc.Run
// says which, as shared_state.
type SharedState struct {
	// Store names the store: "redis".
	Store string
	// Address is where it is, as a URL without user information or query
	// (the start line strips them whatever is given).
	Address string
}
