package fxsvc_test

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/lifecycle"
	"github.com/svckit/svc/modules/ratelimit"
)

func limitedRouter() *chi.Mux {
	r := chi.NewRouter()
	r.With(ratelimit.Limit("1/h", 1, ratelimit.Name("fx-orders"))).Post("/orders", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
	})
	r.Get("/orders", func(http.ResponseWriter, *http.Request) {})
	return r
}

func TestRateLimitsRunsBehindTheGate(t *testing.T) {
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Authn(behindtest.Verifier{}), fxsvc.RateLimits(),
		fx.Provide(limitedRouter), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	send := func(token string) *http.Response {
		req, _ := http.NewRequest("POST", "http://"+srv.Addr()+"/orders", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for range 3 {
		if resp := send(""); resp.StatusCode != 401 {
			t.Fatalf("no token: %d", resp.StatusCode)
		}
	}
	if resp := send(behindtest.Alice); resp.StatusCode != 201 || resp.Header.Get("RateLimit") == "" {
		t.Fatalf("first: %d %v", resp.StatusCode, resp.Header)
	}
	if resp := send(behindtest.Alice); resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("second: %d %v", resp.StatusCode, resp.Header)
	}
}

func TestCheckListsRateLimits(t *testing.T) {
	var out, errOut bytes.Buffer
	code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Provide(limitedRouter), fxsvc.Errors(),
		fxsvc.Authn(behindtest.Verifier{}), fxsvc.RateLimits(), fxsvc.Serve(fxsvc.Addr("256.0.0.1:1")))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "ratelimit=1/h burst 1") {
		t.Fatalf("check output:\n%s", out.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "GET") && strings.Contains(line, "ratelimit") {
			t.Fatalf("an unlimited route listed a limit: %q", line)
		}
	}
}

func TestRateLimitsRefusesBadSettingsAndASecondOne(t *testing.T) {
	app := fx.New(fx.NopLogger, fxsvc.RateLimits(ratelimit.Include("orders")), fx.Invoke(func(*ratelimit.Limiter) {}))
	if err := app.Err(); err == nil || !strings.Contains(err.Error(), "ratelimit.Include") {
		t.Fatalf("bad Include: %v", err)
	}
	app = fx.New(fx.NopLogger, fxsvc.RateLimits(), fxsvc.RateLimits())
	var se *lifecycle.SingletonError
	if err := app.Err(); !errors.As(err, &se) && (err == nil || !strings.Contains(err.Error(), "onlyOneRateLimitsPerApp")) {
		t.Fatalf("second RateLimits: %v", err)
	}
}
