package fxsvc

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/svckit/svc/secret"
	"io"
	"slices"
	"strings"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/internal/kitlog"
)

// sharedState is where the replicas' shared state lives (fxredis
// provides it through package kitlog).
type sharedState = kitlog.SharedState

// describe is the start line's shared_state: the store and its address,
// or "in-memory" when replicas share nothing.
func describeShared(s *sharedState) string {
	if s == nil || s.Store == "" {
		return "in-memory (not shared between replicas)"
	}
	if s.Address == "" {
		return s.Store
	}
	return s.Store + " " + secret.URL(s.Address).String()
}

// startInfoGroup collects each component's part of the start line.
const startInfoGroup = kitlog.StartGroup

// startInfo is one component's part of the start line. Each component's
// option provides its own (see describe), so that Run names no component
// type: an app links only the components it uses. fxredis provides its
// own through package kitlog.
type startInfo = kitlog.StartPart

// describe provides a component's part of the start line, built from the
// component's T when the line is written. encode must write no secret as
// it is: secret.String and secret.URL print ***.
func describe[T any](name string, encode func(T, zapcore.ObjectEncoder)) fx.Option {
	return fx.Provide(fx.Annotate(func(v T) startInfo {
		return startInfo{Name: name, Encode: func(enc zapcore.ObjectEncoder) { encode(v, enc) }}
	}, fx.ResultTags(`group:"`+startInfoGroup+`"`)))
}

// runInfo is what [Run] says about the app in its start and stop lines:
// where it listens, which components are active and how each is set up.
type runInfo struct {
	log       *zap.Logger
	ownLogger bool
	server    *Server
	shared    *sharedState
	parts     []startInfo
	wrappers  []string
	stopStart time.Time
	reason    string
}

type runInfoIn struct {
	fx.In
	Log    logIn
	Server *Server      `optional:"true"`
	Shared *sharedState `optional:"true"`
	Parts  []startInfo  `group:"svc.start.info"`
	// Registered names the request-path components (health, cors, the
	// app's wrappers, …) with or without a server; Serve builds them
	// anyway.
	Registered registered
}

// collectRunInfo is invoked last, like collectStopParts, so that asking
// for the components builds none of them out of the app's own order.
func collectRunInfo(info *runInfo) fx.Option {
	return fx.Invoke(info.collect)
}

// collect reads the start line's parts from the graph.
func (i *runInfo) collect(in runInfoIn) error {
	log, err := in.Log.get()
	if err != nil {
		return err
	}
	*i = runInfo{log: log, ownLogger: in.Log.own(), server: in.Server, shared: in.Shared, parts: in.Parts}
	// fx hands value groups over in no set order.
	slices.SortFunc(i.parts, func(a, b startInfo) int { return cmp.Compare(a.Name, b.Name) })
	i.wrappers = in.Registered.components()
	if in.Server != nil {
		i.wrappers = append(i.wrappers, in.Server.components...)
	}
	return nil
}

func (i *runInfo) logger() *zap.Logger {
	if i.log == nil {
		return zap.NewNop()
	}
	return i.log
}

// components names the active components, sorted.
func (i *runInfo) components() []string {
	var names []string
	if i.server != nil {
		names = append(names, "http")
	}
	for _, p := range i.parts {
		names = append(names, p.Name)
	}
	names = append(names, i.wrappers...)
	slices.Sort(names)
	return slices.Compact(names)
}

// started writes the start line: the address, the active components and
// their resolved settings. Secrets are never among the fields: the ones a
// component holds print as *** (secret.String, secret.URL).
func (i *runInfo) started(stopBudget time.Duration) {
	var fields []zap.Field
	if i.server != nil {
		fields = append(fields, zap.String("server.address", i.server.Addr()))
	}
	fields = append(fields, zap.String("shared_state", describeShared(i.shared)), zap.Strings("components", i.components()),
		zap.Object("config", zapcore.ObjectMarshalerFunc(func(enc zapcore.ObjectEncoder) error {
			i.encodeConfig(enc, stopBudget)
			return nil
		})))
	i.logger().Info("svc: started", fields...)
}

func (i *runInfo) encodeConfig(enc zapcore.ObjectEncoder, stopBudget time.Duration) {
	if stopBudget > 0 { // 0: the app's own fx.StopTimeout, unknown here
		enc.AddDuration("shutdown_timeout", stopBudget)
	}
	if i.ownLogger {
		enc.AddString("log", "the app's own logger")
	} else if s, err := loadLogSettings(); err == nil {
		_ = enc.AddObject("log", zapcore.ObjectMarshalerFunc(func(enc zapcore.ObjectEncoder) error {
			enc.AddString("level", s.level.String())
			enc.AddString("format", s.format)
			return nil
		}))
	}
	if s := i.server; s != nil {
		_ = enc.AddObject("http", zapcore.ObjectMarshalerFunc(func(enc zapcore.ObjectEncoder) error {
			enc.AddString("addr", s.srv.Addr)
			enc.AddDuration("read_header_timeout", s.srv.ReadHeaderTimeout)
			enc.AddDuration("read_timeout", s.srv.ReadTimeout)
			enc.AddDuration("write_timeout", s.srv.WriteTimeout)
			enc.AddDuration("idle_timeout", s.srv.IdleTimeout)
			enc.AddInt("max_header_bytes", s.srv.MaxHeaderBytes)
			enc.AddInt("max_connections", s.limit.max)
			enc.AddDuration("drain_timeout", s.drain)
			return nil
		}))
	}
	for _, p := range i.parts {
		if p.Encode == nil {
			continue
		}
		_ = enc.AddObject(p.Name, zapcore.ObjectMarshalerFunc(func(enc zapcore.ObjectEncoder) error {
			p.Encode(enc)
			return nil
		}))
	}
}

// startFailed reports a failed start once: on the app's log, where every
// other line of the run goes, or as a plain line on stderr when the app
// was not built far enough to have one. The error is the component's own:
// fx's "OnStart hook added by ... failed" names a function of the kit.
func (i *runInfo) startFailed(stderr io.Writer, err error) {
	err = hookCause(err)
	if i.log == nil {
		fmt.Fprintf(stderr, "svc: start: %v\n", err)
		return
	}
	i.log.Error("svc: start failed", zap.Error(err))
}

// hookCause is the error a start or stop hook returned, without fx's
// wrapping that names the hook's function.
func hookCause(err error) error {
	for strings.HasPrefix(err.Error(), "OnStart hook added by ") || strings.HasPrefix(err.Error(), "OnStop hook added by ") {
		inner := errors.Unwrap(err)
		if inner == nil {
			break
		}
		err = inner
	}
	return err
}

// stopping notes why the app stops and when the stop began.
func (i *runInfo) stopping(reason string) {
	i.reason = reason
	i.stopStart = time.Now()
}

// stopped writes the stop line: why, how long the stop and the server's
// drain took, and how it went.
func (i *runInfo) stopped(err error, budgetRanOut bool, code int) {
	fields := []zap.Field{
		zap.String("reason", i.reason),
		zap.Duration("took", time.Since(i.stopStart)),
		zap.Int("exit_code", code),
	}
	if s := i.server; s != nil {
		drained, cut := s.drainReport()
		fields = append(fields, zap.Duration("drain", drained), zap.Duration("drain_timeout", s.drain))
		if cut > 0 {
			fields = append(fields, zap.Int("requests_cut_off", cut))
		}
	}
	switch {
	case err == nil:
		i.logger().Info("svc: stopped", append(fields, zap.String("outcome", "clean"))...)
	case budgetRanOut:
		i.logger().Error("svc: stopped", append(fields, zap.String("outcome", "the stop budget ran out ("+shutdownTimeoutVar+")"), zap.Error(err))...)
	default:
		i.logger().Error("svc: stopped", append(fields, zap.String("outcome", "failed"), zap.Error(err))...)
	}
}
