package fxsvc_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/redisstore/fxredis"
	"github.com/svckit/svc/modules/tracing"
	"github.com/svckit/svc/secret"
)

// Regression: issue 24 item 11.
// The start line says whether shared state is on: Redis and its address,
// never its password, or in memory.
func TestStartLineSaysWhereSharedStateIs(t *testing.T) {
	const pw = "s3cret-redis-pw"
	srv := redistest.Start(t, redistest.Password(pw))
	sentinel := redistest.StartSentinel(t, redistest.Password(pw))
	for _, tc := range []struct {
		name string
		opts []fx.Option
		want string
	}{
		{"in memory", nil, "in-memory (not shared between replicas)"},
		{"redis", []fx.Option{fxredis.Config(redisstore.Config{URL: secret.URL(srv.URL), Timeout: 2 * time.Second})},
			"redis redis://" + srv.Addr},
		{"redis sentinel", []fx.Option{fxredis.Config(redisstore.Config{URL: secret.URL(sentinel.URL), Mode: "sentinel", Timeout: 2 * time.Second})},
			"redis sentinel master=" + redistest.MasterName + " redis://" + strings.Join(sentinelAddrs(sentinel), ",")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runApp(t, append([]fx.Option{fx.Supply(chi.NewRouter()), fxsvc.Errors(), fxsvc.Serve()}, tc.opts...)...)
			rec := r.waitFor(t, "svc: started")
			if got := rec["shared_state"]; got != tc.want {
				t.Fatalf("shared_state %v, want %q", got, tc.want)
			}
			if r.stop(t) != 0 || strings.Contains(r.stderr.String(), pw) {
				t.Fatalf("failed stop, or the password in the log:\n%s", r.stderr.String())
			}
		})
	}
}

// Regression: issue 24 item 11.
// "svc: ready" is logged when the app becomes ready, after the start
// line, with nothing probing /readyz.
func TestReadyIsLoggedWhenTheAppBecomesReady(t *testing.T) {
	var up atomic.Bool
	r := runApp(t, fx.Supply(chi.NewRouter()), fxsvc.Errors(), fxsvc.Health(), fxsvc.Serve(),
		fxsvc.Readiness(func() fxsvc.ReadinessCheck {
			return fxsvc.ReadinessCheck{Name: "warmup", Check: func(context.Context) error {
				if !up.Load() {
					return errors.New("cache still warming")
				}
				return nil
			}}
		}))
	notReady := r.waitFor(t, "svc: not ready")
	if checks, _ := notReady["checks"].([]any); len(checks) != 1 || checks[0] != "warmup" {
		t.Fatalf("not ready line %v", notReady)
	}
	up.Store(true)
	r.waitFor(t, "svc: ready")
	var order []string
	for _, rec := range records(r.stderr.String()) {
		if m, _ := rec["msg"].(string); m == "svc: started" || m == "svc: ready" || m == "svc: not ready" {
			order = append(order, m)
		}
	}
	if strings.Join(order, "|") != "svc: started|svc: not ready|svc: ready" {
		t.Fatalf("lines in order %v", order)
	}
}

// Regression: issue 24 item 11.
// An inactive tracer shows no shutdown timeout (it flushes nothing),
// rather than 0s against the documented 1 s; an active one shows its own.
func TestStartLineShowsTheTracingFlushOnlyWhenActive(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     []tracing.Option
		active   bool
		shutdown any
	}{
		{"inactive", []tracing.Option{tracing.WithConfig(tracing.Config{Exporter: "none"})}, false, nil},
		// Nothing is recorded, so nothing is sent to the unused port.
		{"active", []tracing.Option{tracing.WithConfig(tracing.Config{Exporter: "otlp-http", Export: tracing.Export{Endpoint: "http://127.0.0.1:1"}})}, true, "1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runApp(t, fx.Supply(chi.NewRouter()), fxsvc.Errors(), fxsvc.Serve(), fxsvc.Tracing(tc.opts...))
			cfg, _ := r.waitFor(t, "svc: started")["config"].(map[string]any)
			tr, _ := cfg["tracing"].(map[string]any)
			if tr == nil || tr["active"] != tc.active || tr["shutdown_timeout"] != tc.shutdown {
				t.Fatalf("tracing on the start line: %v", tr)
			}
		})
	}
}

func sentinelAddrs(s *redistest.Sentinel) []string {
	var a []string
	for _, n := range s.Sentinels {
		a = append(a, n.Addr)
	}
	return a
}
