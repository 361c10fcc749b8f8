package fxsvc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/svckit/svc/fxsvc"
	svcerrors "github.com/svckit/svc/modules/errors"
)

func startApp(t *testing.T, opts ...fx.Option) (*fxtest.App, *fxsvc.Server) {
	t.Helper()
	var srv *fxsvc.Server
	app := fxtest.New(t, append(opts, fx.Populate(&srv))...)
	app.RequireStart()
	return app, srv
}

func TestServeWrapsTheRouterInTheErrorFormat(t *testing.T) {
	router := func() *chi.Mux {
		r := chi.NewRouter()
		r.Get("/ok", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "fine") })
		r.Method("GET", "/limited", svcerrors.Handler(func(http.ResponseWriter, *http.Request) error {
			return &svcerrors.RateLimitExceeded{RetryAfter: time.Second}
		}))
		return r
	}
	app, srv := startApp(t, fxsvc.Errors(), fx.Provide(router), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	base := "http://" + srv.Addr()

	resp, err := http.Get(base + "/ok")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "fine" {
		t.Fatalf("got %q", body)
	}
	for path, status := range map[string]int{"/limited": 429, "/missing": 404} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		var p svcerrors.ProblemDetail
		_ = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if resp.StatusCode != status || p.Status != status || resp.Header.Get("Content-Type") != svcerrors.ProblemMediaType {
			t.Fatalf("%s: %d %+v", path, resp.StatusCode, p)
		}
	}
}

func TestTMFErrorsModule(t *testing.T) {
	r := chi.NewRouter()
	app, srv := startApp(t, fxsvc.TMFErrors("SHOP", svcerrors.KindDocs), fx.Supply(r), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	resp, err := http.Get("http://" + srv.Addr() + "/nope")
	if err != nil {
		t.Fatal(err)
	}
	var e svcerrors.TMFError
	_ = json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if e.Code != "SHOP-NOT-FOUND" || e.Type != "Error" || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%+v", e)
	}
}

func TestOneErrorFormatPerApp(t *testing.T) {
	app := fx.New(fx.NopLogger, fxsvc.Errors(), fxsvc.TMFErrors("X", ""))
	if err := app.Err(); err == nil || !strings.Contains(err.Error(), "onlyOneErrorFormatPerApp") {
		t.Fatalf("err = %v, want fx's duplicate error naming onlyOneErrorFormatPerApp", err)
	}
}

func TestServeNeedsExactlyOneRouter(t *testing.T) {
	app := fx.New(fx.NopLogger, fxsvc.Serve())
	if err := app.Err(); err == nil || !strings.Contains(err.Error(), "provides no router") {
		t.Fatalf("no router: %v", err)
	}
	app = fx.New(fx.NopLogger, fx.Supply(chi.NewRouter(), http.NewServeMux()), fxsvc.Serve())
	if err := app.Err(); err == nil || !strings.Contains(err.Error(), "more than one router") {
		t.Fatalf("two routers: %v", err)
	}
}

func TestServeHonoursSVCHTTPAddrAndFailsOnATakenPort(t *testing.T) {
	first, srv := startApp(t, fx.Supply(chi.NewRouter()), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer first.RequireStop()
	t.Setenv("SVC_HTTP_ADDR", srv.Addr())
	app := fx.New(fx.NopLogger, fx.Supply(chi.NewRouter()), fxsvc.Serve())
	err := app.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), srv.Addr()) || !strings.Contains(err.Error(), "SVC_HTTP_ADDR") {
		t.Fatalf("start on a taken port: %v", err)
	}
}

func slowRouter(release <-chan struct{}, started chan<- struct{}) *chi.Mux {
	r := chi.NewRouter()
	r.Get("/slow", func(w http.ResponseWriter, _ *http.Request) {
		started <- struct{}{}
		<-release
		_, _ = io.WriteString(w, "done")
	})
	return r
}

func TestStopDrainsInFlightRequests(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{}, 1)
	app, srv := startApp(t, fx.Supply(slowRouter(release, started)), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	var wg sync.WaitGroup
	var body []byte
	wg.Add(1)
	go func() {
		defer wg.Done()
		resp, err := http.Get("http://" + srv.Addr() + "/slow")
		if err != nil {
			t.Error(err)
			return
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}()
	<-started
	stopped := make(chan struct{})
	go func() { app.RequireStop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("stop returned while a request was in flight")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-stopped
	wg.Wait()
	if !bytes.Equal(body, []byte("done")) {
		t.Fatalf("in-flight request got %q", body)
	}
}

func TestStopIsBoundedByTheDrainTimeout(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{}, 1)
	defer close(release)
	app, srv := startApp(t, fx.Supply(slowRouter(release, started)),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"), fxsvc.DrainTimeout(100*time.Millisecond)))
	errs := make(chan error, 1)
	go func() {
		resp, err := http.Get("http://" + srv.Addr() + "/slow")
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		errs <- err
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := app.Stop(ctx); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("stop was not bounded by the drain timeout")
	}
	if err := <-errs; err == nil {
		t.Fatal("the request past the drain timeout completed; it should have been cut off")
	}
}
