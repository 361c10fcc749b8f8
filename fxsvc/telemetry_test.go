package fxsvc_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/reqid"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/metrics"
	"github.com/svckit/svc/modules/requestid"
)

type tokenVerifier struct{}

func (tokenVerifier) Verify(_ context.Context, token string) (bearer.Principal, error) {
	if token == "good" {
		return bearer.Principal{Subject: "alice", Authenticated: true}, nil
	}
	return bearer.Principal{}, &bearer.TokenError{Reason: bearer.ReasonSignature}
}

func telemetryRouter() *chi.Mux {
	r := chi.NewRouter()
	r.Get("/orders/{id}", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "order") })
	return r
}

func get(t *testing.T, url, token string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// One app with the gate, metrics and the access log: the gate's 401 and
// the admitted 200 both carry a request ID, are logged and measured by
// route, and the Go runtime's metrics are exported beside them.
func TestServeTelemetryOutsideTheGate(t *testing.T) {
	metricsEnvClean(t)
	t.Setenv("SVC_ACCESS_LOG", "")
	t.Setenv("SVC_METRICS_EXPORTER", "prometheus")
	core, logs := observer.New(zapcore.InfoLevel)
	var m *metrics.Metrics
	app, srv := startApp(t,
		fx.Supply(zap.New(core)),
		fxsvc.Errors(), fxsvc.Metrics(), fxsvc.AccessLog(), fxsvc.AccessLog(),
		fxsvc.Authn(tokenVerifier{}, authn.EndUser(true)),
		fx.Provide(telemetryRouter), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")),
		fx.Populate(&m))
	defer app.RequireStop()
	base := "http://" + srv.Addr()

	// In this order: the admitted request's record is the second.
	for _, c := range []struct {
		token  string
		status int
	}{{"", 401}, {"good", 200}} {
		resp := get(t, base+"/orders/7", c.token)
		if resp.StatusCode != c.status || !reqid.Valid(resp.Header.Get(requestid.Header)) {
			t.Fatalf("token %q: %d, X-Request-ID %q", c.token, resp.StatusCode, resp.Header.Get(requestid.Header))
		}
	}
	records := logs.FilterLoggerName("svc.http.access").All()
	if len(records) != 2 {
		t.Fatalf("%d access records, want 2 (AccessLog twice is one log): %v", len(records), records)
	}
	for _, e := range records {
		if e.ContextMap()["http.route"] != "/orders/{id}" {
			t.Errorf("record %q %v", e.Message, e.ContextMap())
		}
	}
	if records[1].ContextMap()["enduser.id"] != "alice" {
		t.Errorf("admitted record without enduser.id: %v", records[1].ContextMap())
	}

	body := scrapeBody(t, m)
	for _, want := range []string{
		`http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_code="401",http_route="/orders/{id}"`,
		`http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_code="200",http_route="/orders/{id}"`,
		"http_server_active_requests",
		"go_goroutine{",
		"go_memory_used_bytes",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %s", want)
		}
	}
	if t.Failed() {
		t.Log(body)
	}
}

// Without the option and the variable, no access log; the request ID is
// still given.
func TestServeAccessLogIsOptIn(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want int
	}{{"", 0}, {"false", 0}, {"true", 1}} {
		t.Run("SVC_ACCESS_LOG="+tc.env, func(t *testing.T) {
			t.Setenv("SVC_ACCESS_LOG", tc.env)
			core, logs := observer.New(zapcore.InfoLevel)
			app, srv := startApp(t, fx.Supply(zap.New(core)), fx.Provide(telemetryRouter), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
			defer app.RequireStop()
			resp := get(t, "http://"+srv.Addr()+"/orders/1", "")
			if !reqid.Valid(resp.Header.Get(requestid.Header)) {
				t.Fatalf("X-Request-ID %q", resp.Header.Get(requestid.Header))
			}
			got := logs.FilterLoggerName("svc.http.access").All()
			if len(got) != tc.want {
				t.Fatalf("%d access records, want %d", len(got), tc.want)
			}
			// Without a gate the router names the route.
			if tc.want == 1 && got[0].ContextMap()["http.route"] != "/orders/{id}" {
				t.Fatalf("record %v", got[0].ContextMap())
			}
		})
	}
}

func TestServeRefusesAnInvalidAccessLogSetting(t *testing.T) {
	t.Setenv("SVC_ACCESS_LOG", "maybe")
	app := fx.New(fx.Provide(telemetryRouter), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")), fx.NopLogger)
	var se *fxsvc.SettingError
	if !errors.As(app.Err(), &se) || se.Setting != "SVC_ACCESS_LOG" {
		t.Fatalf("fx.New err = %v, want a *fxsvc.SettingError naming SVC_ACCESS_LOG", app.Err())
	}
	// It says what to write, not which Go function failed.
	if se.Problem != `"maybe" is not true or false` {
		t.Fatalf("problem %q", se.Problem)
	}
}
