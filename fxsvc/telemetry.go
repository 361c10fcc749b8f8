package fxsvc

import (
	"net/http"
	"reflect"

	"github.com/caarlos0/env/v11"
	"github.com/go-chi/chi/v5"
	otelmetric "go.opentelemetry.io/otel/metric"
	"go.uber.org/fx"

	"github.com/svckit/svc/modules/telemetry"
)

// accessLogGroup collects the [AccessLog] options of an app: a group, so
// that adding it twice is harmless.
const accessLogGroup = "svc.http.accesslog"

type accessLogOn struct{}

// AccessLog turns on the access log of [Serve]: one record per request
// (logger svc.http.access on the graph's *zap.Logger, else
// [DefaultLogger]), with the method, the route template, the status, the
// body size, the duration, the caller's address ([TrustedProxies]
// honoured), the request ID and, under authn.EndUser(true), the subject. It is written outside the
// authentication gate, so the gate's refusals are logged too.
// SVC_ACCESS_LOG=true turns it on without code; the option wins over
// SVC_ACCESS_LOG=false.
func AccessLog() fx.Option {
	return fx.Supply(fx.Annotated{Group: accessLogGroup, Target: accessLogOn{}})
}

type telemetryEnv struct {
	AccessLog *bool `env:"SVC_ACCESS_LOG"`
}

type telemetryIn struct {
	fx.In
	Lifecycle fx.Lifecycle
	AccessLog []accessLogOn `group:"svc.http.accesslog"`
	Log       logIn
	Proxies   trustedProxies
	Router    *chi.Mux       `optional:"true"`
	ChiRouter chi.Router     `optional:"true"`
	ServeMux  *http.ServeMux `optional:"true"`
	Handler   http.Handler   `optional:"true"`
}

// newTelemetry builds the request telemetry [Serve] puts outermost: request
// IDs always; HTTP server metrics and server spans on the global providers
// while they are installed (fxsvc.Metrics and fxsvc.Tracing install them);
// the access log when asked for.
func newTelemetry(in telemetryIn) (stage, error) {
	e, err := loadTelemetryEnv()
	if err != nil {
		return stage{}, err
	}
	opts := []telemetry.Option{telemetry.TrustedProxies(in.Proxies.cidrs...)}
	if len(in.AccessLog) > 0 || (e.AccessLog != nil && *e.AccessLog) {
		// One record per request: the default logger's sampling would
		// drop most of a busy route's, which all share one message.
		log, err := in.Log.unsampled()
		if err != nil {
			return stage{}, err
		}
		opts = append(opts, telemetry.AccessLog(log))
	}
	// Without a gate, the router itself names the routes.
	if router, err := pickRouter(serveIn{Router: in.Router, ChiRouter: in.ChiRouter, ServeMux: in.ServeMux, Handler: in.Handler}); err == nil {
		opts = append(opts, telemetry.Router(router))
	}
	t, err := telemetry.New(opts...)
	if err != nil {
		return stage{}, err // loadTrustedProxies refused it first, naming the setting
	}
	return stage{name: stageTelemetry, components: []string{"telemetry"}, wrap: func(h http.Handler) (http.Handler, error) {
		return t.Handler(h), nil
	}}, nil
}

// loadTelemetryEnv reads SVC_ACCESS_LOG; a bad value is a *SettingError
// naming it.
func loadTelemetryEnv() (telemetryEnv, error) {
	var e telemetryEnv
	if err := env.Parse(&e); err != nil {
		return e, envSettingError(err, reflect.TypeFor[telemetryEnv]())
	}
	return e, nil
}

// meterSource hands fxsvc's own server metrics (the shed connections) the
// metrics component's provider while it is active; fxsvc.Metrics provides
// it, so an app without metrics links no metrics SDK.
type meterSource func() (otelmetric.MeterProvider, bool, error)
