package fxsvc_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// A degraded check leaves /readyz at 200, naming the check in its body;
// an ordinary failing check beside it still answers 503, naming only
// itself.
func TestReadyzNamesDegradedChecksWithoutFailing(t *testing.T) {
	var down, dbDown atomic.Bool
	down.Store(true)
	core, logs := observer.New(zap.InfoLevel)
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Health(), fx.Supply(okRouter(), zap.New(core)),
		fxsvc.Readiness(func() fxsvc.ReadinessCheck {
			return fxsvc.ReadinessCheck{Name: "search", Degraded: true, Check: func(context.Context) error {
				if down.Load() {
					return errors.New("search is down")
				}
				return nil
			}}
		}),
		readiness("db", func(context.Context) error {
			if dbDown.Load() {
				return errors.New("db is down")
			}
			return nil
		}),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	base := "http://" + srv.Addr()
	a := send(t, "GET", base+"/readyz")
	if a.status != 200 || a.body != "ok\ndegraded: search\n" || a.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("%d %v %q, want 200 naming search as degraded", a.status, a.header, a.body)
	}
	dbDown.Store(true)
	if got := notReady(t, send(t, "GET", base+"/readyz")); len(got) != 1 || got[0] != "db" {
		t.Fatalf("checks %v, want [db] alone", got)
	}
	dbDown.Store(false)
	down.Store(false)
	if a := send(t, "GET", base+"/readyz"); a.status != 200 || a.body != "ok\n" {
		t.Fatalf("%d %q after recovery", a.status, a.body)
	}
	var degradedLogs int
	for _, e := range logs.All() {
		if e.Message == "svc: ready, degraded" {
			degradedLogs++
			if !strings.Contains(e.ContextMap()["error.search"].(string), "down") {
				t.Errorf("the log lacks the check's error: %v", e.ContextMap())
			}
		}
	}
	if degradedLogs != 1 {
		t.Fatalf("logged degraded %d times, want once", degradedLogs)
	}
}

// A pattern with oauthclient.Resilience{Degraded: true} is named on
// /readyz while its breaker is open; the probe stays 200.
func TestReadyzNamesAPatternWhoseBreakerIsOpen(t *testing.T) {
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"access_token":"tok","token_type":"Bearer","expires_in":3600}`)
	}))
	defer idp.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer api.Close()
	var p *oauthclient.Pattern
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Health(), fx.Supply(okRouter(), zap.NewNop()),
		fxsvc.OAuthClient(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(idp.URL+"/token"), oauthclient.ClientID("svc"),
			oauthclient.ClientSecret(secret.String("s3cret"))),
		fxsvc.ClientCredentials("Billing", oauthclient.WithoutEnv(),
			oauthclient.Resilience{Degraded: true, MaxAttempts: 1, MinRequests: 2}),
		fx.Populate(fx.Annotate(&p, fx.ParamTags(`name:"Billing"`))),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	base := "http://" + srv.Addr()
	if a := send(t, "GET", base+"/readyz"); a.status != 200 || a.body != "ok\n" {
		t.Fatalf("%d %q before any failure", a.status, a.body)
	}
	for range 2 {
		resp, err := p.Client().Get(api.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if _, err := p.Client().Get(api.URL); !errors.As(err, new(*oauthclient.CircuitOpenError)) {
		t.Fatalf("err %v, want the breaker open", err)
	}
	if a := send(t, "GET", base+"/readyz"); a.status != 200 || a.body != "ok\ndegraded: oauthclient.billing\n" {
		t.Fatalf("%d %q, want 200 naming oauthclient.billing as degraded", a.status, a.body)
	}
}
