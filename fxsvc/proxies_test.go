package fxsvc_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/ratelimit"
)

// TestClientsBehindATrustedProxyAreToldApart: behind a proxy that writes
// ports into X-Forwarded-For (Azure Application Gateway) or writes only
// Forwarded, two clients get two rate-limit budgets and two ban counters,
// and the access log names each. The proxy is the test itself, on
// 127.0.0.1; it is declared once, by the option or by the variable.
func TestClientsBehindATrustedProxyAreToldApart(t *testing.T) {
	cases := []struct {
		name   string
		header string
		a, b   string // what the proxy writes for clients A and B
		byEnv  bool
	}{
		{"X-Forwarded-For with ports", "X-Forwarded-For", "203.0.113.7:5555", "203.0.113.8:6666", false},
		{"X-Forwarded-For with ports, by the variable", "X-Forwarded-For", "203.0.113.7:5555", "[2001:db8::8]:6666", true},
		{"Forwarded only", "Forwarded", `for="203.0.113.7:5555"`, "for=203.0.113.8", false},
		{"Forwarded only, by the variable", "Forwarded", `for="203.0.113.7:5555";proto=https`, `for="[2001:db8::8]"`, true},
	}
	want := map[string]string{"a": "203.0.113.7", "b": "203.0.113.8"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantB := want["b"]
			if strings.Contains(c.b, "2001:db8::8") {
				wantB = "2001:db8::8"
			}
			proxies := fxsvc.TrustedProxies("127.0.0.1")
			if c.byEnv {
				t.Setenv("SVC_HTTP_TRUSTED_PROXIES", "10.0.0.0/8, 127.0.0.1/32")
				proxies = fx.Options()
			}
			core, logs := observer.New(zapcore.InfoLevel)
			router := func() *chi.Mux {
				r := chi.NewRouter()
				r.With(authn.Anonymous, ratelimit.Limit("1/h", 1)).Get("/anon", func(http.ResponseWriter, *http.Request) {})
				r.Get("/me", func(http.ResponseWriter, *http.Request) {})
				return r
			}
			app, srv := startApp(t, fx.Supply(zap.New(core)), fxsvc.Errors(), fxsvc.AccessLog(), proxies,
				fxsvc.Authn(behindtest.Verifier{}, authn.Bans(bans.New(bans.Threshold(2)))),
				fxsvc.RateLimits(), fx.Provide(router), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
			defer app.RequireStop()
			send := func(path, client, token string) int {
				t.Helper()
				req, _ := http.NewRequest("GET", "http://"+srv.Addr()+path, nil)
				req.Header.Set(c.header, client)
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}

			// Two budgets: A spends its own, B still has one.
			if got := send("/anon", c.a, ""); got != 200 {
				t.Fatalf("A's first request: %d", got)
			}
			if got := send("/anon", c.a, ""); got != 429 {
				t.Fatalf("A's second request: %d, want 429", got)
			}
			if got := send("/anon", c.b, ""); got != 200 {
				t.Fatalf("B's first request: %d: B spent A's budget", got)
			}

			// The access log names each client.
			var named []string
			for _, e := range logs.FilterLoggerName("svc.http.access").All() {
				named = append(named, e.ContextMap()["client.address"].(string))
			}
			if strings.Join(named, " ") != want["a"]+" "+want["a"]+" "+wantB {
				t.Fatalf("access log named %q", named)
			}

			// Two ban counters (threshold 2): one forgery each bans nobody.
			send("/me", c.a, "forged")
			send("/me", c.b, "forged")
			if got := send("/me", c.a, behindtest.Alice); got != 200 {
				t.Fatalf("A after one forgery each: %d: one counter for both", got)
			}
			send("/me", c.a, "forged")
			if got := send("/me", c.a, behindtest.Alice); got != 429 {
				t.Fatalf("A after its second forgery: %d, want 429", got)
			}
			if got := send("/me", c.b, behindtest.Alice); got != 200 {
				t.Fatalf("B while A is banned: %d", got)
			}
		})
	}
}

func TestTrustedProxiesRefusesBadEntries(t *testing.T) {
	router := fx.Provide(func() *chi.Mux { return chi.NewRouter() })
	cases := []struct {
		name    string
		env     string
		opt     fx.Option
		setting string
	}{
		{"variable not a CIDR", "10.0.0.0/8,proxy.local", fx.Options(), "SVC_HTTP_TRUSTED_PROXIES"},
		{"variable trusts everyone", "0.0.0.0/0", fx.Options(), "SVC_HTTP_TRUSTED_PROXIES"},
		{"option not a CIDR", "", fxsvc.TrustedProxies("10.0.0.0/33"), "fxsvc.TrustedProxies"},
		{"option trusts everyone", "", fxsvc.TrustedProxies("::/0"), "fxsvc.TrustedProxies"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv("SVC_HTTP_TRUSTED_PROXIES", c.env)
			}
			err := fx.New(fx.NopLogger, router, c.opt, fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"))).Err()
			var se *fxsvc.SettingError
			if !errors.As(err, &se) || se.Setting != c.setting {
				t.Fatalf("err = %v, want a *SettingError naming %s", err, c.setting)
			}
		})
	}
}

// Bans need the proxies declared: else a proxy's address is banned, and
// every caller behind it with it.
func TestBansNeedTrustedProxiesDeclared(t *testing.T) {
	app := func(opts ...fx.Option) error {
		return fx.New(append([]fx.Option{fx.NopLogger,
			fx.Provide(func() *chi.Mux { return chi.NewRouter() }),
			fxsvc.Authn(behindtest.Verifier{}, authn.Bans(bans.New())),
			fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"))}, opts...)...).Err()
	}
	err := app()
	if err == nil || !strings.Contains(err.Error(), "SVC_HTTP_TRUSTED_PROXIES") || !strings.Contains(err.Error(), "fxsvc.TrustedProxies") {
		t.Fatalf("undeclared: %v", err)
	}
	if err := app(fxsvc.TrustedProxies()); err != nil {
		t.Fatalf("declared none by the option: %v", err)
	}
	t.Setenv("SVC_HTTP_TRUSTED_PROXIES", "")
	if err := app(); err != nil {
		t.Fatalf("declared none by the variable: %v", err)
	}
}
