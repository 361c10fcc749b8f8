package fxsvc

import (
	"errors"
	"fmt"
	"os"
	"time"

	"go.uber.org/fx"
)

// defaultShutdownTimeout is the whole stop budget of [Run] and [Main]
// (SVC_SHUTDOWN_TIMEOUT): fx's own default stop timeout. It is split as
// the server's drain (SVC_HTTP_DRAIN_TIMEOUT, 8 s), then the metrics flush
// (SVC_METRICS_SHUTDOWN_TIMEOUT, 5 s) and the tracing flush
// (SVC_TRACING_SHUTDOWN_TIMEOUT, 1 s), leaving 1 s for the other
// components' stop hooks.
const defaultShutdownTimeout = 15 * time.Second

// shutdownTimeoutVar names the stop budget's variable.
const shutdownTimeoutVar = "SVC_SHUTDOWN_TIMEOUT"

// loadShutdownTimeout reads SVC_SHUTDOWN_TIMEOUT: a positive Go duration or
// number of seconds, 15 seconds when unset.
func loadShutdownTimeout() (time.Duration, error) {
	v, ok := os.LookupEnv(shutdownTimeoutVar)
	if !ok || v == "" {
		return defaultShutdownTimeout, nil
	}
	d, err := parsePositiveDuration(v)
	if err != nil {
		return 0, &SettingError{Setting: shutdownTimeoutVar, Problem: err.Error()}
	}
	return d, nil
}

// shutdownTimeoutCheck checks SVC_SHUTDOWN_TIMEOUT with the app's other
// settings.
func shutdownTimeoutCheck() error {
	_, err := loadShutdownTimeout()
	return err
}

// stopParts are the parts of the stop budget that the graph knows: the
// server's shutdown delay and drain, the metrics flush and the tracing
// flush, run one after the other.
type stopParts struct {
	delay, drain, flush, traceFlush time.Duration
}

type stopPartsIn struct {
	fx.In
	Server *Server    `optional:"true"`
	Parts  []stopPart `group:"svc.stop.parts"`
}

// stopPart is a component's own share of the stop budget, provided by
// fxsvc.Metrics and fxsvc.Tracing (so that stop.go names neither type and
// an app without them links neither SDK).
type stopPart struct {
	kind string
	d    time.Duration
}

// collectStopParts is invoked last, so that asking for the server and the
// metrics component builds nothing out of the app's own order.
func collectStopParts(parts *stopParts) fx.Option {
	return fx.Invoke(func(in stopPartsIn) {
		if in.Server != nil {
			parts.delay = in.Server.delay
			parts.drain = in.Server.drain
		}
		for _, p := range in.Parts {
			switch p.kind {
			case "metrics":
				parts.flush = p.d
			case "tracing":
				parts.traceFlush = p.d
			}
		}
	})
}

// check refuses parts that cannot fit budget. They must leave room: the
// other components' stop hooks run in the same budget, and fx's error when
// it runs out names no hook.
func (p stopParts) check(budget time.Duration) error {
	if p.delay+p.drain+p.flush+p.traceFlush < budget {
		return nil
	}
	return &SettingError{
		Setting: shutdownTimeoutVar,
		Problem: fmt.Sprintf("the stop budget %v leaves no room for the server's shutdown delay (SVC_HTTP_SHUTDOWN_DELAY, %v) "+
			"plus its drain (SVC_HTTP_DRAIN_TIMEOUT, %v) plus the metrics flush (SVC_METRICS_SHUTDOWN_TIMEOUT, %v) "+
			"plus the tracing flush (SVC_TRACING_SHUTDOWN_TIMEOUT, %v): raise %s (or fx.StopTimeout) or lower them",
			budget, p.delay, p.drain, p.flush, p.traceFlush, shutdownTimeoutVar),
	}
}

// withStopBudget adds to a report of bad settings (err, from fx.New) the
// stop budget's own refusal, computed from the parts the components'
// settings give (settings) against budget, so that a deployment learns of
// it with the rest rather than once they are fixed. Any other error is
// returned as it is: when every setting is valid, the graph's parts are
// checked once built.
func withStopBudget(err error, settings stopParts, budget time.Duration) error {
	var report *settingsReport
	if !errors.As(err, &report) {
		return err
	}
	stopErr := settings.check(budget)
	if stopErr == nil {
		return err
	}
	return settingsErrors(append(append([]error(nil), report.errs...), stopErr))
}
