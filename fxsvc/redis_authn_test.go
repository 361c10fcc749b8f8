package fxsvc_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/redis/go-redis/v9"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/redistest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/flood"
	"github.com/svckit/svc/modules/redisstore"
	"github.com/svckit/svc/modules/redisstore/fxredis"
	"github.com/svckit/svc/modules/telemetry"
	"github.com/svckit/svc/secret"
)

// TestAuthnOnRedisSharesBansBetweenApps: two apps with fxredis.Redis, as two
// replicas. A forger whose failures are counted across both is banned by
// both; the flood budget is one; stopping the apps stops the subscribers.
func TestAuthnOnRedisSharesBansBetweenApps(t *testing.T) {
	redistest.EachEngine(t, testAuthnOnRedisSharesBansBetweenApps)
}

func testAuthnOnRedisSharesBansBetweenApps(t *testing.T, engine redistest.Option) {
	srv := redistest.Start(t, engine)
	replica := func() (*fx.App, http.Handler) {
		var g *authn.Gate
		app := fx.New(fx.NopLogger,
			fx.Supply(zap.NewNop()),
			fxredis.Config(redisstore.Config{URL: secret.URL(srv.URL), Prefix: "app:", Timeout: 300 * time.Millisecond}),
			fxsvc.Authn(tokens{}, authn.Bans(bans.New(bans.Threshold(2))), authn.Flood(flood.New(flood.Rate(0.01), flood.Burst(1)))),
			fxsvc.TrustedProxies("127.0.0.1/32"),
			fx.Populate(&g))
		if err := app.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		h := gateOnMe(t, g)
		// As fxsvc.Serve would: the outermost wrapper names the caller.
		tel, err := telemetry.New(telemetry.TrustedProxies("127.0.0.1/32"))
		if err != nil {
			t.Fatal(err)
		}
		return app, tel.Handler(h)
	}
	var callPath func(h http.Handler, path, addr, token string) int
	a, ha := replica()
	b, hb := replica()
	call := func(h http.Handler, token string) int { return callPath(h, "/me", "198.51.100.66", token) }
	callPath = func(h http.Handler, path, addr, token string) int {
		req := httptest.NewRequest("GET", path, nil)
		req.RemoteAddr = "127.0.0.1:4000"
		req.Header.Set("X-Forwarded-For", addr)
		req.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Code
	}
	if call(ha, "forged") != 401 || call(hb, "forged") != 401 {
		t.Fatal("forgeries not refused 401")
	}
	deadline := time.Now().Add(5 * time.Second)
	for call(hb, "alice-token") != 429 || call(ha, "alice-token") != 429 {
		if time.Now().After(deadline) {
			t.Fatal("a ban counted across the two apps is not enforced by both")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if callPath(ha, "/nowhere", "203.0.113.5", "alice-token") != 404 || callPath(hb, "/nowhere", "203.0.113.5", "alice-token") != 429 {
		t.Fatal("the flood budget is not one across the two apps")
	}
	for _, app := range []*fx.App{a, b} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := app.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
	}
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer admin.Close()
	subs, err := admin.PubSubNumSub(context.Background(), "app:bans:started").Result()
	if err != nil || subs["app:bans:started"] != 0 {
		t.Fatalf("subscribers left after the apps stopped: %v %v", subs, err)
	}
}

// gateOnMe is g in front of a chi router whose one route, GET /me,
// answers 200 to whom the gate admits.
func gateOnMe(t *testing.T, g *authn.Gate) http.Handler {
	t.Helper()
	r := chi.NewRouter()
	r.Get("/me", func(http.ResponseWriter, *http.Request) {})
	h, err := g.Handler(r)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
