package fxsvc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"
)

// DefaultAddr is where [Serve] listens when SVC_HTTP_ADDR is unset: loopback,
// so that a service is never exposed by accident.
const DefaultAddr = "127.0.0.1:8080"

// DefaultDrainTimeout bounds how long [Serve] waits for in-flight requests
// on stop. It stays under fx's default 15 s stop timeout so that components
// closed after the server still get their turn.
const DefaultDrainTimeout = 10 * time.Second

// ServeOption configures [Serve].
type ServeOption func(*serveConfig)

type serveConfig struct {
	Addr         string `env:"SVC_HTTP_ADDR"`
	drainTimeout time.Duration
	readHeader   time.Duration
}

// Addr sets the listen address, overriding SVC_HTTP_ADDR.
func Addr(addr string) ServeOption { return func(c *serveConfig) { c.Addr = addr } }

// DrainTimeout bounds the wait for in-flight requests on stop; requests
// still running then are cut off.
func DrainTimeout(d time.Duration) ServeOption {
	return func(c *serveConfig) {
		if d > 0 {
			c.drainTimeout = d
		}
	}
}

// Server is the running HTTP server of [Serve].
type Server struct {
	srv *http.Server
	ln  net.Listener
}

// Addr is the address the server listens on (the real port when the
// configured one was 0). Empty before the app starts.
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Handler is what the server serves: the app's router inside every wrapper.
func (s *Server) Handler() http.Handler { return s.srv.Handler }

type serveIn struct {
	fx.In
	Lifecycle  fx.Lifecycle
	Shutdowner fx.Shutdowner
	Wrappers   []Wrapper      `group:"svc.http.wrappers"`
	Router     *chi.Mux       `optional:"true"`
	ChiRouter  chi.Router     `optional:"true"`
	ServeMux   *http.ServeMux `optional:"true"`
	Handler    http.Handler   `optional:"true"`
	Logger     *zap.Logger    `optional:"true"`
	Overrides  []ServeOption  `group:"svc.http.options"`
}

// ServeOverride adds options that [Serve] applies after its own (and after
// the environment): a test kit uses it to listen on a free loopback port
// whatever the app's options say.
func ServeOverride(opts ...ServeOption) fx.Option {
	anns := make([]any, len(opts))
	for i, o := range opts {
		anns[i] = fx.Annotated{Group: "svc.http.options", Target: o}
	}
	return fx.Supply(anns...)
}

// Serve runs an http.Server for the app's router for the life of the app.
// The router is the one value of the graph of type *chi.Mux, chi.Router,
// *http.ServeMux or http.Handler; an app with none, or with more than one,
// fails to start with an error saying so. It listens on SVC_HTTP_ADDR
// (default 127.0.0.1:8080), binds at start so that a taken port fails
// start-up, and on stop drains in-flight requests within DrainTimeout.
func Serve(opts ...ServeOption) fx.Option {
	return fx.Module("svc.http",
		fx.Provide(func(in serveIn) (*Server, error) {
			cfg := serveConfig{Addr: DefaultAddr, drainTimeout: DefaultDrainTimeout, readHeader: 10 * time.Second}
			if err := env.Parse(&cfg); err != nil {
				return nil, fmt.Errorf("fxsvc.Serve: reading SVC_HTTP_ADDR: %w", err)
			}
			for _, o := range append(append([]ServeOption(nil), opts...), in.Overrides...) {
				o(&cfg)
			}
			router, err := pickRouter(in)
			if err != nil {
				return nil, err
			}
			handler, err := applyWrappers(router, in.Wrappers)
			if err != nil {
				return nil, err
			}
			s := &Server{srv: &http.Server{
				Addr:              cfg.Addr,
				Handler:           handler,
				ReadHeaderTimeout: cfg.readHeader,
			}}
			log := in.Logger
			if log == nil {
				log = zap.L()
			}
			in.Lifecycle.Append(fx.Hook{
				OnStart: func(context.Context) error { return s.start(log, in.Shutdowner) },
				OnStop:  func(ctx context.Context) error { return s.stop(ctx, cfg.drainTimeout, log) },
			})
			return s, nil
		}),
		fx.Invoke(func(*Server) {}),
	)
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
	ln, err := net.Listen("tcp", s.srv.Addr)
	if err != nil {
		return fmt.Errorf("fxsvc.Serve: listen on %s (set SVC_HTTP_ADDR): %w", s.srv.Addr, err)
	}
	s.ln = ln
	log.Info("svc: serving HTTP", zap.String("server.address", ln.Addr().String()))
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("svc: HTTP server failed", zap.Error(err))
			_ = sd.Shutdown(fx.ExitCode(1))
		}
	}()
	return nil
}

func (s *Server) stop(ctx context.Context, drain time.Duration, log *zap.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, drain)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		// Requests still running past the drain bound are cut off.
		_ = s.srv.Close()
		if errors.Is(err, context.DeadlineExceeded) {
			log.Warn("svc: requests still running after the drain timeout were cut off", zap.Duration("drain_timeout", drain))
			return nil
		}
		return fmt.Errorf("fxsvc.Serve: shutdown: %w", err)
	}
	return nil
}
