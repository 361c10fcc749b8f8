package fxsvc

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/internal/kitlog"
)

// The variables of [DefaultLogger].
const (
	logLevelVar  = "SVC_LOG_LEVEL"
	logFormatVar = "SVC_LOG_FORMAT"
)

// logSettings is what SVC_LOG_LEVEL and SVC_LOG_FORMAT resolved to.
type logSettings struct {
	level  zapcore.Level
	format string // "json" or "console"
}

// loadLogSettings reads SVC_LOG_LEVEL (debug, info, warn or error; info
// when unset) and SVC_LOG_FORMAT (json or console; json when unset). A bad
// value is a *SettingError naming its variable; both are reported.
func loadLogSettings() (logSettings, error) {
	s := logSettings{level: zapcore.InfoLevel, format: "json"}
	var errs []error
	if v := strings.ToLower(strings.TrimSpace(os.Getenv(logLevelVar))); v != "" {
		switch v {
		case "debug", "info", "warn", "error":
			s.level, _ = zapcore.ParseLevel(v)
		default:
			errs = append(errs, &SettingError{Setting: logLevelVar, Problem: fmt.Sprintf("%q is not a level: use debug, info (the default), warn or error", v)})
		}
	}
	if v := strings.ToLower(strings.TrimSpace(os.Getenv(logFormatVar))); v != "" {
		switch v {
		case "json", "console":
			s.format = v
		default:
			errs = append(errs, &SettingError{Setting: logFormatVar, Problem: fmt.Sprintf("%q is not a format: use json (the default) or console", v)})
		}
	}
	return s, joinErrors(errs)
}

// DefaultLogger builds the logger that fxsvc's components log to when the
// app provides no *zap.Logger: zap's production logger (JSON lines on
// standard error, ISO-8601 times, sampled as zap samples) at SVC_LOG_LEVEL
// (debug, info, warn or error; default info), in SVC_LOG_FORMAT (json, the
// default, or console for a human-readable line). An app's own
// *zap.Logger always wins. Provide it to share it with the app's own
// constructors:
//
//	fx.Provide(fxsvc.DefaultLogger)
//
// It refuses a bad SVC_LOG_LEVEL or SVC_LOG_FORMAT with a *SettingError
// naming the variable.
func DefaultLogger() (*zap.Logger, error) { return newDefaultLogger(os.Stderr) }

func newDefaultLogger(w io.Writer) (*zap.Logger, error) {
	l, _, err := newDefaultLoggers(w)
	return l, err
}

// newDefaultLoggers returns the default logger and its unsampled twin, on
// one sink. The access log writes to the twin: its records of one busy
// route all share a message, and sampling would drop most of them.
func newDefaultLoggers(w io.Writer) (sampled, all *zap.Logger, err error) {
	s, err := loadLogSettings()
	if err != nil {
		return nil, nil, err
	}
	cfg := zap.NewProductionEncoderConfig()
	cfg.EncodeTime = zapcore.ISO8601TimeEncoder
	// "8s" reads as a duration; zap's default, 8, does not.
	cfg.EncodeDuration = zapcore.StringDurationEncoder
	var enc zapcore.Encoder
	if s.format == "console" {
		cfg.EncodeLevel = zapcore.CapitalLevelEncoder
		enc = zapcore.NewConsoleEncoder(cfg)
	} else {
		enc = zapcore.NewJSONEncoder(cfg)
	}
	sink := zapcore.Lock(zapcore.AddSync(w))
	// zap's production sampling: a flood of one message is cut to 100 a
	// second, then one in 100.
	core := zapcore.NewCore(enc, sink, s.level)
	sampler := zapcore.NewSamplerWithOptions(core, time.Second, 100, 100)
	return zap.New(sampler, zap.ErrorOutput(sink)), zap.New(core, zap.ErrorOutput(sink)), nil
}

// logFallback is where a component's logger comes from when the app
// provides none: [Run] supplies one writing to its stderr, built once so
// that every component of the app shares it. Without Run (an app built
// with fx.New), each component builds [DefaultLogger] on standard error.
type logFallback struct {
	w    io.Writer
	once sync.Once
	log  *zap.Logger
	all  *zap.Logger // log unsampled, on the same sink
	err  error
}

func (f *logFallback) get() (*zap.Logger, error) {
	if f == nil {
		return newDefaultLogger(os.Stderr)
	}
	f.once.Do(func() { f.log, f.all, f.err = newDefaultLoggers(f.w) })
	return f.log, f.err
}

// unsampled is get without the sampling.
func (f *logFallback) unsampled() (*zap.Logger, error) {
	if f == nil {
		_, all, err := newDefaultLoggers(os.Stderr)
		return all, err
	}
	if _, err := f.get(); err != nil {
		return nil, err
	}
	return f.all, nil
}

// supplyLogFallback puts the default logger on w in the graph, for the
// components of fxsvc (logIn) and for the kit's wiring outside it
// (kitlog.Fallback: fxredis).
func supplyLogFallback(w io.Writer) fx.Option {
	f := &logFallback{w: w}
	return fx.Options(fx.Supply(f), fx.Provide(func() kitlog.Fallback { return f.get }))
}

// logIn is how a component finds its logger: the app's *zap.Logger when
// it provides one, else the default.
type logIn struct {
	fx.In
	Logger   *zap.Logger  `optional:"true"`
	Fallback *logFallback `optional:"true"`
}

// get returns the app's logger or the default; the error is the default's
// bad setting.
func (l logIn) get() (*zap.Logger, error) {
	if l.Logger != nil {
		return l.Logger, nil
	}
	return l.Fallback.get()
}

// unsampled returns the app's logger, or the default one without its
// sampling: for a log that must keep every record (the access log).
func (l logIn) unsampled() (*zap.Logger, error) {
	if l.Logger != nil {
		return l.Logger, nil
	}
	return l.Fallback.unsampled()
}

// own reports whether the app provides its own logger.
func (l logIn) own() bool { return l.Logger != nil }

// logSettingsCheck checks SVC_LOG_LEVEL and SVC_LOG_FORMAT with the app's
// other settings, whether or not the app has a logger of its own: a typo
// there is a deployment mistake either way.
func logSettingsCheck() error {
	_, err := loadLogSettings()
	return err
}
