package metrics

import (
	"fmt"
	"log"
	"os"
	"sync/atomic"

	"github.com/go-logr/logr"
	"github.com/go-logr/stdr"
	"go.opentelemetry.io/otel"
	"go.uber.org/zap"

	"github.com/svckit/svc/internal/otelcore"
)

// OpenTelemetry reports what goes wrong inside the SDK (a failed periodic
// export, a conflicting instrument) through two process-global hooks: the
// error handler (otel.Handle) and the logr logger (otel internal logging).
// Both write to Go's standard logger by default, outside the app's zap
// logger and its level and format. While a component is open, both route
// to the logger of the component the bridge forwards to, with the config's
// secrets redacted: the latest component whose provider is alive (open, or
// closing: its final export's errors are its own).
//
// Like the meter provider, the default error handler is wired once per
// process (the first SetErrorHandler becomes its permanent delegate), so
// the router is installed once and outlives every component: with none
// open it writes where OpenTelemetry's defaults would.

// otelRouter is the error handler installed while a component is open.
type otelRouter struct{}

var (
	theRouter = &otelRouter{}
	// logOwner is the component OpenTelemetry's errors go to: the latest
	// whose provider is alive. Read without a lock on every error.
	logOwner atomic.Pointer[Metrics]
	// prevHandler is the error handler found when the first component came
	// alive, restored when the last one is shut down; guarded by
	// otelLogging.Mu.
	prevHandler otel.ErrorHandler
	// loggerSet records that the logr router is installed; guarded by
	// otelLogging.Mu. otel offers no getter for its logger, so there is nothing
	// to restore: with no component open the router logs as the default.
	loggerSet bool
	// stdLogger is OpenTelemetry's default: the standard logger, errors only.
	stdLogger = stdr.New(log.New(os.Stderr, "", log.LstdFlags|log.Lshortfile))
)

// Handle logs err at error level on the current component's logger,
// redacted, at most once per kind a minute (see logOTelError); with no
// component open, on the standard logger as OpenTelemetry's default
// handler does.
func (*otelRouter) Handle(err error) {
	if m := logOwner.Load(); m != nil {
		m.logOTelError(err)
		return
	}
	log.Print(err)
}

// otelLogging routes OpenTelemetry's errors and logs to the latest live
// component.
var otelLogging = otelcore.Installer[*Metrics]{
	Save: func() {
		if h := otel.GetErrorHandler(); h != otel.ErrorHandler(theRouter) {
			prevHandler = h
			otel.SetErrorHandler(theRouter)
		}
		if !loggerSet {
			otel.SetLogger(logr.New(routedSink{}))
			loggerSet = true
		}
	},
	// Unless someone replaced the router meanwhile.
	Restore: func() {
		if prevHandler != nil && otel.GetErrorHandler() == otel.ErrorHandler(theRouter) {
			otel.SetErrorHandler(prevHandler)
		}
		prevHandler = nil
	},
	Switch: func(m *Metrics) { logOwner.Store(m) },
}

// addOTelLogging routes OpenTelemetry's errors and logs to m, whose
// provider was just installed.
func addOTelLogging(m *Metrics) { otelLogging.Install(m, func() {}) }

// removeOTelLogging is called once m's provider is shut down. The latest
// live component takes over; with none left the error handler found by the
// first comes back, unless someone replaced the router meanwhile.
func removeOTelLogging(m *Metrics) { otelLogging.Uninstall(m) }

// routedSink is a logr sink writing to the current component's zap logger:
// Error records at error level, V(1) (OpenTelemetry's warnings) at warn,
// each message at most once per otelErrorWindow; its info and debug
// levels (V(4), V(8)) are dropped, as by default.
type routedSink struct {
	name string
	kv   []any
}

func (routedSink) Init(logr.RuntimeInfo) {}

func (routedSink) Enabled(level int) bool { return level <= 1 }

func (s routedSink) Info(level int, msg string, kv ...any) {
	m := logOwner.Load()
	if m == nil {
		stdLogger.WithName(s.name).WithValues(s.kv...).V(level).Info(msg, kv...)
		return
	}
	// Limited like errors: the trace SDK warns once per span that drops
	// attributes or events, which can be once per request.
	ok, suppressed := m.otelErrors.allow(s.message(msg))
	if !ok {
		return
	}
	fields := s.fields(m.cfg, kv)
	if suppressed > 0 {
		fields = append(fields, zap.Int("suppressed", suppressed))
	}
	m.c.Log.Warn(s.message(msg), fields...)
}

func (s routedSink) Error(err error, msg string, kv ...any) {
	m := logOwner.Load()
	if m == nil {
		stdLogger.WithName(s.name).WithValues(s.kv...).Error(err, msg, kv...)
		return
	}
	ok, suppressed := m.otelErrors.allow(s.message(msg))
	if !ok {
		return
	}
	fields := append(s.fields(m.cfg, kv), zap.Error(otelcore.RedactExport(err, m.cfg.Export)))
	if suppressed > 0 {
		fields = append(fields, zap.Int("suppressed", suppressed))
	}
	m.c.Log.Error(s.message(msg), fields...)
}

func (s routedSink) WithValues(kv ...any) logr.LogSink {
	return routedSink{name: s.name, kv: append(append([]any(nil), s.kv...), kv...)}
}

func (s routedSink) WithName(name string) logr.LogSink {
	if s.name != "" {
		name = s.name + "/" + name
	}
	return routedSink{name: name, kv: s.kv}
}

func (s routedSink) message(msg string) string {
	if s.name == "" {
		return "opentelemetry: " + msg
	}
	return "opentelemetry " + s.name + ": " + msg
}

// fields turns logr's key/value pairs into zap fields, each value printed
// and redacted: the SDK logs values of its own choosing.
func (s routedSink) fields(c Config, kv []any) []zap.Field {
	all := append(append([]any(nil), s.kv...), kv...)
	fields := make([]zap.Field, 0, len(all)/2+1)
	for i := 0; i+1 < len(all); i += 2 {
		key, ok := all[i].(string)
		if !ok {
			key = fmt.Sprint(all[i])
		}
		fields = append(fields, zap.String(key, redactString(fmt.Sprint(all[i+1]), c)))
	}
	return fields
}

// redactString hides the config's secrets in s.
func redactString(s string, c Config) string {
	return otelcore.RedactExport(stringError(s), c.Export).Error()
}

type stringError string

func (e stringError) Error() string { return string(e) }
