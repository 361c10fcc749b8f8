package fxsvc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/chihead"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// defaultAddr is where [Serve] listens when SVC_HTTP_ADDR is unset: loopback,
// so that a service is never exposed by accident. In a container, set
// SVC_HTTP_ADDR=:8080 to listen on every interface.
const defaultAddr = "127.0.0.1:8080"

// ServeOption configures [Serve].
type ServeOption func(*serveConfig)

// Server is the running HTTP server of [Serve].
type Server struct {
	srv      *http.Server
	ln       net.Listener
	next     http.Handler
	chain    []string
	running  inflight
	hijacked hijackedConns
	limit    *connLimit
	meters   meterSource // nil without fxsvc.Metrics
	// reportStop ends the summary of shed connections; reportDone is
	// closed once it has ended.
	reportStop, reportDone chan struct{}
	stopping               chan struct{} // closed when the drain starts
	stopOnce               sync.Once
	drain                  time.Duration
	// drained and cutOff are what the last stop's drain took and how many
	// requests it cut off, for Run's stop line; the stop hook may still be
	// running when fx gives up on it.
	drained atomic.Int64
	cutOff  atomic.Int32

	leaving   chan struct{} // closed when stop begins, before the delay
	leaveOnce sync.Once
	delay     time.Duration
	sleep     func(ctx context.Context, d time.Duration) // tests replace the delay's timer
	tlsFiles  [2]string                                  // cert, key; empty for plain HTTP
	// tlsClientCerts asks TLS clients for a certificate (TLSClientCertificates).
	tlsClientCerts bool

	// components are what the chain holds, for the start line.
	components []string
}

// Addr is the address the server listens on (the real port when the
// configured one was 0). Empty before the app starts.
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Chain names the wrappers around the app's router, outermost first, and
// "router" last: the same in every process of one app.
func (s *Server) Chain() []string { return slices.Clone(s.chain) }

type serveIn struct {
	fx.In
	Lifecycle  fx.Lifecycle
	Shutdowner fx.Shutdowner
	Chain      chainIn
	Router     *chi.Mux       `optional:"true"`
	ChiRouter  chi.Router     `optional:"true"`
	ServeMux   *http.ServeMux `optional:"true"`
	Handler    http.Handler   `optional:"true"`
	Log        logIn
	Overrides  []ServeOption `group:"svc.http.options"` // kitlog.ServeOverrides
	Meters     meterSource   `optional:"true"`
}

// Serve runs an http.Server for the app's router for the life of the app.
// The router is the one value of the graph of type *chi.Mux, chi.Router,
// *http.ServeMux or http.Handler; an app with none, or with more than one,
// fails to start with an error saying so. It listens on SVC_HTTP_ADDR
// (default 127.0.0.1:8080) and binds at start, so that a taken port fails
// start-up. Loopback is unreachable from outside a container: there, set
// SVC_HTTP_ADDR=:8080 (every interface) so that the platform's probes and
// traffic reach the server.
//
// Every connection is bounded: SVC_HTTP_READ_HEADER_TIMEOUT,
// SVC_HTTP_READ_TIMEOUT, SVC_HTTP_WRITE_TIMEOUT, SVC_HTTP_IDLE_TIMEOUT and
// SVC_HTTP_MAX_HEADER_BYTES (or the options of the same names) set the
// http.Server fields of the same names; zero is refused, as net/http reads
// it as "no limit". A connection a handler hijacks (a websocket) may outlive
// them: net/http clears its deadlines on Hijack, and its handler owns it.
//
// Open connections are capped by SVC_HTTP_MAX_CONNECTIONS (see
// [MaxConnections]; by default the descriptor limit less a tenth), so that
// idle keep-alive connections cannot lock new clients out: above nine
// tenths of the cap the oldest idle ones are closed to make room and
// answers carry Connection: close; at the cap a new connection is reset at
// once. What is shed is counted in the svc.http.server.shed_connections
// metric and summed up in one warning a minute.
//
// With SVC_HTTP_TLS_CERT_FILE and SVC_HTTP_TLS_KEY_FILE (or [TLSFiles]) it
// serves HTTPS, TLS 1.2 at least, re-reading the pair when the files
// change; one without the other fails the build, a pair that does not load
// fails start, naming both files. SVC_HTTP_TLS_CLIENT_CERTIFICATES=true
// (or [TLSClientCertificates]) asks clients for a certificate.
//
// It wraps the router in the chain written in chain.go, outermost first:
// telemetry, errors, cors, health, components, gate, router ([Server.Chain]
// names it); an app adds its own with [Wrap]. Outermost is the request
// telemetry (modules/telemetry): a request ID on every request
// (X-Request-ID), the HTTP server metrics while the app's [Metrics] is
// active, a server span once a tracer provider is installed, and the access
// log with [AccessLog] or SVC_ACCESS_LOG=true.
//
// On stop it first fails /readyz (see [Health]) and keeps serving for
// SVC_HTTP_SHUTDOWN_DELAY (default 0, see [ShutdownDelay]), so that load
// balancers stop sending; then it closes the channel [ShuttingDown] returns and waits, within
// SVC_HTTP_DRAIN_TIMEOUT (default 8 s), for in-flight requests and for the
// handlers of hijacked connections; those still running then are cut off
// with a warning. An invalid setting fails the app's build with a
// *SettingError naming the variable or option.
func Serve(opts ...ServeOption) fx.Option {
	return withKit(fx.Module("svc.http",
		KnownVariables(append(knownEnvOf(&serveConfig{}, ""), knownEnvOf(&telemetryEnv{}, "")...)...),
		checkSettingsFor(func(env settingsEnv) error {
			cfg, err := loadServeConfig(opts) // a bad setting keeps its default
			env.stop.delay, env.stop.drain = time.Duration(cfg.ShutdownDelay), cfg.DrainTimeout
			return err
		}),
		checkSettings(func() error { _, err := loadTelemetryEnv(); return err }),
		checkSettings(func() error { _, err := proxiesFromEnv(); return err }),
		fx.Provide(loadTrustedProxies),
		fx.Provide(func(in serveIn) (*Server, error) {
			cfg, err := loadServeConfig(append(append([]ServeOption(nil), opts...), in.Overrides...))
			if err != nil {
				return nil, err
			}
			router, err := pickRouter(in)
			if err != nil {
				return nil, err
			}
			handler, names, components, err := buildChain(in.Chain, router)
			if err != nil {
				return nil, err
			}
			s := &Server{next: handler, chain: names, components: components, stopping: make(chan struct{}), drain: cfg.DrainTimeout,
				leaving: make(chan struct{}), delay: time.Duration(cfg.ShutdownDelay),
				tlsFiles: [2]string{cfg.TLSCertFile, cfg.TLSKeyFile}, tlsClientCerts: cfg.TLSClientCerts,
				limit: newConnLimit(cfg.maxConns()), meters: in.Meters}
			s.srv = &http.Server{
				Addr:              cfg.Addr,
				Handler:           http.HandlerFunc(s.serveHTTP),
				ReadHeaderTimeout: cfg.ReadHeaderTimeout,
				ReadTimeout:       cfg.ReadTimeout,
				WriteTimeout:      cfg.WriteTimeout,
				IdleTimeout:       cfg.IdleTimeout,
				MaxHeaderBytes:    cfg.MaxHeaderBytes,
				BaseContext:       s.baseContext,
				ConnContext:       connContext,
				ConnState:         s.connState,
			}
			log, err := in.Log.get()
			if err != nil {
				return nil, err
			}
			// net/http's own lines (a handler's panic, a failed TLS
			// handshake) would otherwise go to the standard library's
			// logger, plain text among the JSON lines.
			if s.srv.ErrorLog, err = zap.NewStdLogAt(log, zapcore.WarnLevel); err != nil {
				return nil, err
			}
			in.Lifecycle.Append(fx.Hook{
				OnStart: func(context.Context) error { return s.start(log, in.Shutdowner) },
				OnStop:  func(ctx context.Context) error { return s.stop(ctx, log) },
			})
			return s, nil
		}),
		fx.Invoke(func(*Server) {}),
	))
}

func pickRouter(in serveIn) (http.Handler, error) {
	var found []http.Handler
	for _, h := range []http.Handler{in.Router, in.ChiRouter, in.ServeMux, in.Handler} {
		if h != nil && !isNilHandler(h) {
			found = append(found, h)
		}
	}
	switch len(found) {
	case 0:
		return nil, errors.New("fxsvc.Serve: the app provides no router: fx.Provide a *chi.Mux, chi.Router, *http.ServeMux or http.Handler (an *authn.ServeMux is served with fxsvc.ServeMux())")
	case 1:
		// A chi router answers HEAD as GET where it has no HEAD route,
		// as a ServeMux does; the gate, when there is one, keeps this.
		if mux, ok := found[0].(chihead.Mux); ok {
			return chihead.Wrap(mux), nil
		}
		return found[0], nil
	}
	return nil, errors.New("fxsvc.Serve: the app provides more than one router (*chi.Mux, chi.Router, *http.ServeMux, http.Handler): provide exactly one")
}

func isNilHandler(h http.Handler) bool {
	switch v := h.(type) {
	case *chi.Mux:
		return v == nil
	case *http.ServeMux:
		return v == nil
	}
	return false
}

func (s *Server) start(log *zap.Logger, sd fx.Shutdowner) error {
	if err := s.loadTLS(log); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", s.srv.Addr)
	if err != nil {
		return fmt.Errorf("fxsvc.Serve: listen on %s (set SVC_HTTP_ADDR): %w", s.srv.Addr, err)
	}
	if s.meters != nil {
		if p, active, err := s.meters(); active {
			if err == nil {
				err = s.limit.observe(p)
			}
			if err != nil {
				_ = ln.Close()
				return fmt.Errorf("fxsvc.Serve: HTTP server metrics: %w", err)
			}
		}
	}
	ln = &limitListener{Listener: ln, l: s.limit}
	s.ln = ln
	log.Info("svc: serving HTTP", zap.String("server.address", ln.Addr().String()),
		zap.Int("max_connections", s.limit.max))
	s.reportStop, s.reportDone = make(chan struct{}), make(chan struct{})
	go s.limit.reportEvery(log, shedReportEvery, s.reportStop, s.reportDone)
	go func() {
		if err := s.serveOn(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("svc: HTTP server failed", zap.Error(err))
			_ = sd.Shutdown(fx.ExitCode(1))
		}
	}()
	return nil
}

func (s *Server) stop(ctx context.Context, log *zap.Logger) error {
	defer s.stopReport()
	s.leave(ctx, log)
	s.stopOnce.Do(func() { close(s.stopping) })
	began := time.Now()
	defer func() { s.drained.Store(int64(time.Since(began))) }()
	ctx, cancel := context.WithTimeout(ctx, s.drain)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err == nil {
		// Shutdown waits for neither hijacked connections nor their
		// handlers: wait for those here, so a websocket's close frame is
		// sent before the app's stop goes on.
		err = s.running.wait(ctx)
	}
	if err == nil {
		return nil
	}
	// Requests still running past the drain bound are cut off, hijacked
	// connections too: Close leaves those alone. Counted before: a
	// connection still reading its request, or writing an answer after its
	// handler returned, is cut as well, and no handler counts it.
	cut := s.limit.busy() + int(s.hijacked.n.Load())
	_ = s.srv.Close()
	s.hijacked.closeAll()
	if errors.Is(err, context.DeadlineExceeded) {
		s.cutOff.Store(int32(cut))
		log.Warn("svc: requests still running after the drain timeout were cut off (SVC_HTTP_DRAIN_TIMEOUT)",
			zap.Duration("drain_timeout", s.drain), zap.Int("still_running", cut),
			zap.Int("handlers_running", s.running.count()))
		return nil
	}
	return fmt.Errorf("fxsvc.Serve: shutdown: %w", err)
}

// connState is the http.Server.ConnState of the server.
func (s *Server) connState(c net.Conn, st http.ConnState) {
	s.limit.connState(c, st)
	s.hijacked.connState(c, st)
}

// stopReport ends the summary of shed connections, after a last line for
// what the drain shed.
func (s *Server) stopReport() {
	if s.reportStop == nil {
		return
	}
	close(s.reportStop)
	<-s.reportDone
	s.reportStop = nil
}

// drainReport is what the last stop's drain took and how many requests it
// cut off.
func (s *Server) drainReport() (time.Duration, int) {
	return time.Duration(s.drained.Load()), int(s.cutOff.Load())
}
