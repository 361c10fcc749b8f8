package fxsvc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/fx"
)

// Main runs the app built from opts and exits with its status. It answers
// two commands:
//
//	BINARY         run the service until SIGINT or SIGTERM
//	BINARY check   build the graph without starting it and print one line
//	               per route: method, path template, how it is guarded
//	               (anonymous, authenticated, excluded) and its scopes
//
// Any configuration error fails before anything starts, with the error on
// stderr and exit status 1. Every component's settings are read before any
// component is built, and every bad one is reported together, each naming
// its variable or option. A set SVC_ variable that no component reads but
// that is within two edits of one that is (a typo) is warned about with
// the nearest name, never its value: a WARN line once the app is built, or
// a plain line before the report when it fails. Declare the app's own
// variables with [KnownVariables].
//
// The app logs to its own *zap.Logger, or to [DefaultLogger] (on stderr)
// when it has none: one line once started (the address, the active
// components, their settings with every secret as ***) and one once
// stopped (why, how long the stop and the server's drain took, and how it
// went).
//
// Stopping (on SIGINT or SIGTERM) has one budget, SVC_SHUTDOWN_TIMEOUT
// (default 15 s, fx's stop timeout): the server drains first
// (SVC_HTTP_DRAIN_TIMEOUT, 8 s), then the metrics flush
// (SVC_METRICS_SHUTDOWN_TIMEOUT, 5 s) and the tracing flush
// (SVC_TRACING_SHUTDOWN_TIMEOUT, 1 s), and the rest is left to the other
// components. Parts that do not fit the budget fail start-up with a
// *SettingError naming the variables, reported with every other bad
// setting (and by check). A clean stop exits 0 even when the
// final metrics or tracing flush failed (that is logged as a warning); a stop that
// fails, or runs out of budget, exits 1.
func Main(opts ...fx.Option) {
	os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr, opts...))
}

// Run is [Main] without the exit, for tests and for programs that parse
// their own arguments first. It returns the exit status.
func Run(args []string, stdout, stderr io.Writer, opts ...fx.Option) int {
	cmd := "run"
	if len(args) > 0 {
		cmd = args[0]
	}
	switch cmd {
	case "run":
		return runApp(stderr, opts)
	case "check":
		return check(stdout, stderr, opts...)
	case "help", "-h", "-help", "--help":
		fmt.Fprintln(stdout, "usage: BINARY [run|check]\n  run    serve until SIGINT or SIGTERM (the default)\n  check  print every route and how it is guarded, without starting")
		return 0
	}
	fmt.Fprintf(stderr, "unknown command %q: use run or check\n", cmd)
	return 2
}

func runApp(stderr io.Writer, opts []fx.Option) int {
	// A bad budget is reported with every other bad setting; the default
	// stands in until then.
	budget, budgetErr := loadShutdownTimeout()
	if budgetErr != nil {
		budget = defaultShutdownTimeout
	}
	var parts stopParts
	var found settingsFound
	var info runInfo
	start := newStartState()
	all := append([]fx.Option{
		fx.NopLogger, fx.StopTimeout(budget),
		checkAllSettings(&found, func() error { return budgetErr }, logSettingsCheck),
		supplyLogFallback(stderr), fx.Supply(start),
	}, opts...)
	app := fx.New(append(all, collectStopParts(&parts), collectRunInfo(&info))...)
	if err := app.Err(); err != nil {
		if budgetErr == nil {
			err = withStopBudget(err, found.stop, app.StopTimeout())
		}
		printMisspelt(stderr, found.misspelt)
		fmt.Fprintf(stderr, "svc: %s\n", explain(err))
		return 1
	}
	logMisspelt(info.logger(), found.misspelt)
	if err := parts.check(app.StopTimeout()); err != nil {
		fmt.Fprintf(stderr, "svc: %v\n", err)
		return 1
	}
	// Listen before starting: a SIGTERM that arrives during start-up then
	// stops the app once started, instead of killing the process mid-way.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)
	ctx, cancel := context.WithTimeout(context.Background(), app.StartTimeout())
	defer cancel()
	if err := app.Start(ctx); err != nil {
		info.startFailed(stderr, err)
		return 1
	}
	start.started.Store(true) // /readyz may pass from now on
	info.started(app.StopTimeout())
	close(start.announced) // readiness is logged after the start line
	code := 0
	reason := ""
	select {
	case sig := <-signals:
		reason = "signal " + sig.String()
	case sig := <-app.Wait():
		code = sig.ExitCode
		reason = fmt.Sprintf("the app asked to stop (exit code %d)", code)
	}
	info.stopping(reason)
	stopCtx, stopCancel := context.WithTimeout(context.Background(), app.StopTimeout())
	defer stopCancel()
	err := app.Stop(stopCtx)
	budgetRanOut := err != nil && stopCtx.Err() != nil
	if err != nil {
		if budgetRanOut {
			fmt.Fprintf(stderr, "svc: stop: the stop budget (%s or fx.StopTimeout, %v) ran out: %v\n", shutdownTimeoutVar, app.StopTimeout(), err)
		} else {
			fmt.Fprintf(stderr, "svc: stop: %v\n", err)
		}
		if code == 0 {
			code = 1
		}
	}
	info.stopped(err, budgetRanOut, code)
	return code
}
