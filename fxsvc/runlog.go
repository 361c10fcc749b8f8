package fxsvc

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/modules/authn"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/modules/tracing"
)

// runInfo is what [Run] says about the app in its start and stop lines:
// where it listens, which components are active and how each is set up.
type runInfo struct {
	log       *zap.Logger
	ownLogger bool
	server    *Server
	metrics   *metrics.Metrics
	oauth     *oauthclient.Client
	errors    *svcerrors.Responses
	gate      *authn.Gate
	tracing   *tracing.Tracing
	wrappers  []string
	stopStart time.Time
	reason    string
}

type runInfoIn struct {
	fx.In
	Log     logIn
	Server  *Server              `optional:"true"`
	Metrics *metrics.Metrics     `optional:"true"`
	OAuth   *oauthclient.Client  `optional:"true"`
	Errors  *svcerrors.Responses `optional:"true"`
	Gate    *authn.Gate          `optional:"true"`
	Tracing *tracing.Tracing     `optional:"true"`
	// Wrappers name the request-path components (health, cors,
	// ratelimit, …); Serve builds them anyway.
	Wrappers []Wrapper `group:"svc.http.wrappers"`
}

// collectRunInfo is invoked last, like collectStopParts, so that asking
// for the components builds none of them out of the app's own order.
func collectRunInfo(info *runInfo) fx.Option {
	return fx.Invoke(func(in runInfoIn) error {
		log, err := in.Log.get()
		if err != nil {
			return err
		}
		*info = runInfo{log: log, ownLogger: in.Log.own(), server: in.Server, metrics: in.Metrics,
			oauth: in.OAuth, errors: in.Errors, gate: in.Gate, tracing: in.Tracing}
		for _, w := range in.Wrappers {
			info.wrappers = append(info.wrappers, w.Name)
		}
		return nil
	})
}

func (i *runInfo) logger() *zap.Logger {
	if i.log == nil {
		return zap.NewNop()
	}
	return i.log
}

// started writes the start line: the address, the active components and
// their resolved settings. Secrets are never among the fields: the ones a
// component holds print as *** (secret.String, metrics.Config).
func (i *runInfo) started(stopBudget time.Duration) {
	var active []string
	fields := []zap.Field{}
	if i.server != nil {
		active = append(active, "http")
		fields = append(fields, zap.String("server.address", i.server.Addr()))
	}
	if i.errors != nil {
		active = append(active, "errors")
	}
	if i.gate != nil {
		active = append(active, "authn")
	}
	if i.metrics != nil {
		active = append(active, "metrics")
	}
	if i.oauth != nil {
		active = append(active, "oauthclient")
	}
	if i.tracing != nil {
		active = append(active, "tracing")
	}
	for _, w := range slices.Sorted(slices.Values(i.wrappers)) {
		if !slices.Contains(active, w) {
			active = append(active, w)
		}
	}
	fields = append(fields, zap.Strings("components", active),
		zap.Object("config", zapcore.ObjectMarshalerFunc(func(enc zapcore.ObjectEncoder) error {
			return i.encodeConfig(enc, stopBudget)
		})))
	i.logger().Info("svc: started", fields...)
}

func (i *runInfo) encodeConfig(enc zapcore.ObjectEncoder, stopBudget time.Duration) error {
	enc.AddDuration("shutdown_timeout", stopBudget)
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
			enc.AddDuration("drain_timeout", s.drain)
			return nil
		}))
	}
	if r := i.errors; r != nil {
		format := "rfc9457"
		if r.Format() == svcerrors.FormatTMF {
			format = "tmf630"
		}
		_ = enc.AddObject("errors", zapcore.ObjectMarshalerFunc(func(enc zapcore.ObjectEncoder) error {
			enc.AddString("format", format)
			return nil
		}))
	}
	if g := i.gate; g != nil {
		_ = enc.AddObject("authn", zapcore.ObjectMarshalerFunc(func(enc zapcore.ObjectEncoder) error {
			return encodeVerifier(enc, g.Verifier())
		}))
	}
	if m := i.metrics; m != nil {
		_ = enc.AddObject("metrics", zapcore.ObjectMarshalerFunc(func(enc zapcore.ObjectEncoder) error {
			enc.AddString("name", m.Name())
			enc.AddString("exporter", string(m.Exporter()))
			enc.AddBool("active", m.Active())
			if cfg, err := m.Config(); err == nil {
				encodeMetricsConfig(enc, cfg)
			}
			return nil
		}))
	}
	if c := i.oauth; c != nil {
		_ = enc.AddObject("oauthclient", zapcore.ObjectMarshalerFunc(func(enc zapcore.ObjectEncoder) error {
			if iss := c.Issuer(); iss != "" {
				enc.AddString("issuer", iss)
			}
			if ep := c.TokenEndpoint(); ep != "" {
				enc.AddString("token_endpoint", ep)
			}
			enc.AddString("client_id", c.ClientID())
			return nil
		}))
	}
	return nil
}

// encodeMetricsConfig writes the resolved metrics settings. The endpoint
// prints with its credentials masked (secret.URL), header values and the
// password as *** (secret.String).
func encodeMetricsConfig(enc zapcore.ObjectEncoder, cfg metrics.Config) {
	if cfg.ServiceName != "" {
		enc.AddString("service_name", cfg.ServiceName)
	}
	if cfg.Endpoint.IsSet() {
		enc.AddString("endpoint", cfg.Endpoint.String())
	}
	if len(cfg.Headers) > 0 {
		_ = enc.AddObject("headers", zapcore.ObjectMarshalerFunc(func(enc zapcore.ObjectEncoder) error {
			for _, k := range slices.Sorted(maps.Keys(cfg.Headers)) {
				enc.AddString(k, cfg.Headers[k].String())
			}
			return nil
		}))
	}
	if cfg.BasicAuthUsername != "" {
		enc.AddString("basic_auth_username", cfg.BasicAuthUsername)
		enc.AddString("basic_auth_password", cfg.BasicAuthPassword.String())
	}
	enc.AddDuration("export_interval", cfg.ExportInterval)
	enc.AddDuration("export_timeout", cfg.ExportTimeout)
	enc.AddDuration("shutdown_timeout", cfg.ShutdownTimeout)
}

// encodeVerifier says which verifier the gate uses and whom it trusts.
func encodeVerifier(enc zapcore.ObjectEncoder, v authn.Verifier) error {
	enc.AddString("verifier", fmt.Sprintf("%T", v))
	if iv, ok := v.(interface{ Issuers() []string }); ok {
		_ = enc.AddArray("issuers", zapcore.ArrayMarshalerFunc(func(arr zapcore.ArrayEncoder) error {
			for _, iss := range iv.Issuers() {
				arr.AppendString(iss)
			}
			return nil
		}))
	}
	if dv, ok := v.(interface{ DiscoveryURL() string }); ok && dv.DiscoveryURL() != "" {
		enc.AddString("discovery_url", dv.DiscoveryURL())
	}
	return nil
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
