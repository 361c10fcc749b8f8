package fxsvc_test

import (
	"context"
	"net/http"
	"regexp"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/tracing"
	"github.com/svckit/svc/modules/tracing/tracingtest"
	"github.com/svckit/svc/svctest/checktest"
)

// orderRoute is the route every router of TestOneRouteOnEveryRouter
// serves, in the one form svc names a route by (docs/telemetry.md, "One
// route, one form"): the path template, without the method.
const orderRoute = "/orders/{id}"

func orderLimit() func(http.Handler) http.Handler {
	return ratelimit.Limit("1/h", 1, ratelimit.Name("orders"))
}

func orderHandler(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }

// routeApps are the routers svc serves, each with GET /orders/{id}
// rate-limited to one request an hour; listed says whether `check` can
// list the router's routes (a plain *http.ServeMux cannot).
var routeApps = []struct {
	name   string
	router func() fx.Option
	listed bool
}{
	{"chi", func() fx.Option {
		return fx.Provide(func() *chi.Mux {
			r := chi.NewRouter()
			r.With(orderLimit()).Get(orderRoute, orderHandler)
			return r
		})
	}, true},
	{"http.ServeMux", func() fx.Option {
		return fx.Provide(func() *http.ServeMux {
			mux := http.NewServeMux()
			mux.Handle("GET "+orderRoute, orderLimit()(http.HandlerFunc(orderHandler)))
			return mux
		})
	}, false},
	{"authn.ServeMux", func() fx.Option {
		return fx.Options(fxsvc.ServeMux(), fx.Provide(func() *authn.ServeMux {
			mux := authn.NewServeMux()
			mux.Handle("GET "+orderRoute, orderLimit()(http.HandlerFunc(orderHandler)))
			return mux
		}))
	}, true},
	{"Huma on chi", func() fx.Option { return checktest.HumaApps(humaOrders)["Huma on chi"] }, true},
	{"Huma on ServeMux", func() fx.Option { return checktest.HumaApps(humaOrders)["Huma on ServeMux"] }, true},
}

func humaOrders(api huma.API) {
	op := huma.Operation{Method: http.MethodGet, Path: orderRoute}
	authnhuma.Use(orderLimit())(&op)
	huma.Register(api, op, func(context.Context, *struct{}) (*struct{ Status int }, error) {
		return &struct{ Status int }{http.StatusNoContent}, nil
	})
}

// httpRoute finds every http_route label of a Prometheus scrape, with the
// series it is on.
var httpRoute = regexp.MustCompile(`(?m)^([a-z_]+)\{[^}]*http_route="([^"]*)"`)

// Issue 32 item 4: one route rule. On every router svc serves, the route
// a request is dispatched to is named the same by the HTTP server
// metrics, the rate limit's, the gate's, the access log, the server span
// and `check`: "/orders/{id}", never "GET /orders/{id}" (what net/http
// puts in Request.Pattern) nor a chi pattern of another form.
func TestOneRouteOnEveryRouter(t *testing.T) {
	metricsEnvClean(t)
	tracingEnvClean(t)
	t.Setenv("SVC_METRICS_EXPORTER", "prometheus")
	t.Setenv("SVC_ACCESS_LOG", "true")
	for _, tc := range routeApps {
		t.Run(tc.name, func(t *testing.T) {
			rcv := tracingtest.NewReceiver(t)
			t.Setenv("SVC_TRACING_ENDPOINT", rcv.URL)
			core, logs := observer.New(zapcore.InfoLevel)
			var m *metrics.Metrics
			var tr *tracing.Tracing
			app, srv := startApp(t, fx.Supply(zap.New(core)),
				fxsvc.Errors(), fxsvc.Metrics(), fxsvc.Tracing(), fxsvc.AccessLog(),
				fxsvc.Authn(behindtest.Verifier{}), fxsvc.RateLimits(),
				tc.router(), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")),
				fx.Populate(&m, &tr))
			defer app.RequireStop()
			url := "http://" + srv.Addr() + "/orders/7"
			for _, step := range []struct {
				token  string
				status int
			}{{"", 401}, {behindtest.Alice, 204}, {behindtest.Alice, 429}} {
				if resp := get(t, url, step.token); resp.StatusCode != step.status {
					t.Fatalf("token %q: %d, want %d", step.token, resp.StatusCode, step.status)
				}
			}

			body := scrapeBody(t, m)
			seen := map[string]bool{}
			for _, match := range httpRoute.FindAllStringSubmatch(body, -1) {
				seen[match[1]] = true
				if match[2] != orderRoute {
					t.Errorf("metrics: %s", match[0])
				}
			}
			for _, series := range []string{"http_server_request_duration_seconds_count", "svc_rate_limit_limited_total", "svc_authentication_attempts_total"} {
				if !seen[series] {
					t.Errorf("metrics: no %s with an http_route", series)
				}
			}

			access := logs.FilterLoggerName("svc.http.access").All()
			if len(access) != 3 {
				t.Errorf("%d access records, want 3", len(access))
			}
			for _, e := range access {
				if got := e.ContextMap()["http.route"]; got != orderRoute {
					t.Errorf("access log: %q names route %v", e.Message, got)
				}
			}

			tracingtest.Flush(t, tr)
			servers := 0
			for _, s := range rcv.Spans() {
				if s.Kind != "SPAN_KIND_SERVER" {
					continue
				}
				servers++
				if s.Name != "GET "+orderRoute || s.Attributes["http.route"] != orderRoute {
					t.Errorf("span %q, http.route %q", s.Name, s.Attributes["http.route"])
				}
			}
			if servers != 3 {
				t.Errorf("%d server spans, want 3: %+v", servers, rcv.Spans())
			}

			if !tc.listed {
				return
			}
			routes, out := checktest.Check(t, tc.router())
			if _, ok := routes["GET "+orderRoute]; !ok {
				t.Errorf("check does not list GET %s:\n%s", orderRoute, out)
			}
		})
	}
}
