package fxsvc

import (
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// kitGroup collects the mark of every fxsvc component option in an app.
const kitGroup = "svc.kit"

// kitMark is one component option's share of what [Main] does for an app
// built with fx.New instead: fx's own events on the app's logger (at
// debug, not 100 lines on stderr), every setting read in one pass before
// the first constructor can fail, and the start and stop lines. Each
// option brings a mark; the app's one kitRun does the work once, whichever
// option's hook runs first.
type kitMark struct {
	run *kitRun // set by the event logger, built before any invoke runs
}

// kitRun is the work of one app's kit: nil marks under Main or check,
// which do it themselves, and in a test app (ForTests).
type kitRun struct {
	checked   bool // the settings have been checked
	collected bool // info holds the graph's parts
	info      runInfo
}

// withKit adds the kit to a component option (see kitMark). The settings
// check is a module placed before the component: fx runs the invokes of
// an app's modules, in order, before its own, so the first component's
// check runs before any component is built. The start line's parts are
// collected by an invoke outside any module, after every module's own.
func withKit(component fx.Option) fx.Option {
	mark := &kitMark{}
	return fx.Options(
		fx.Supply(fx.Annotated{Group: kitGroup, Target: mark}),
		fx.WithLogger(newKitLogger),
		fx.Module("svc.kit", fx.Invoke(func(in settingsIn, known knownEnvIn) error { return mark.checkSettings(in, known) })),
		component,
		fx.Invoke(func(in runInfoIn) error { return mark.collect(in) }),
	)
}

// checkSettings reads every component's settings at once, and warns of
// misspelt variables, on the app's logger.
func (m *kitMark) checkSettings(in settingsIn, known knownEnvIn) error {
	if m.run == nil || m.run.checked {
		return nil
	}
	m.run.checked = true
	var stop stopParts
	if err := in.checkAll(&stop, logSettingsCheck); err != nil {
		return err
	}
	var found []misspelt
	findMisspeltIn(known, &found)
	logMisspelt(m.run.info.logger(), found)
	return nil
}

// collect records the graph's parts of the start line.
func (m *kitMark) collect(in runInfoIn) error {
	if m.run == nil || m.run.collected {
		return nil
	}
	m.run.collected = true
	return m.run.info.collect(in)
}

type kitLoggerIn struct {
	fx.In
	Log      logIn
	Marks    []*kitMark       `group:"svc.kit"`
	Checked  *settingsChecked `optional:"true"` // under Main or check
	ForTests *forTests        `optional:"true"`
}

// newKitLogger is the app's fx event logger: fx's events at debug (its
// errors at error) on the app's logger, and, in an app built with fx.New,
// the start and stop lines that Main writes. Under Main and check, which
// report a failed build themselves, and where the logger cannot be built
// (a bad SVC_LOG_LEVEL, reported by the settings check), it logs nothing.
func newKitLogger(in kitLoggerIn) fxevent.Logger {
	if in.Checked != nil {
		// Main and check report a failed build once, in their own words.
		return fxevent.NopLogger
	}
	log, err := in.Log.get()
	if err != nil {
		return fxevent.NopLogger
	}
	events := &fxevent.ZapLogger{Logger: log}
	events.UseLogLevel(zapcore.DebugLevel)
	if in.ForTests != nil {
		return events
	}
	run := &kitRun{info: runInfo{log: log, ownLogger: in.Log.own()}}
	for _, m := range in.Marks {
		m.run = run
	}
	return &kitLogger{events: events, run: run, log: log}
}

// kitLogger writes the start and stop lines as fx reports the app started
// and stopped.
type kitLogger struct {
	events fxevent.Logger
	run    *kitRun
	log    *zap.Logger
}

func (l *kitLogger) LogEvent(e fxevent.Event) {
	l.events.LogEvent(e)
	info := &l.run.info
	switch e := e.(type) {
	case *fxevent.Started:
		if e.Err != nil {
			info.startFailed(nil, e.Err)
			return
		}
		info.started(0)
	case *fxevent.Stopping:
		info.stopping("signal " + e.Signal.String())
	case *fxevent.Stopped:
		if info.stopStart.IsZero() {
			info.stopping("the app was stopped")
		}
		code := 0
		if e.Err != nil {
			code = 1
		}
		info.stopped(e.Err, false, code)
	}
}
