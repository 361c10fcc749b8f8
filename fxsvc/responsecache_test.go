package fxsvc_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/conditional"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/responsecache"
)

// allFour is a router using every component behind the gate.
func allFour(runs *atomic.Int64) func() *chi.Mux {
	return func() *chi.Mux {
		r := chi.NewRouter()
		r.With(authn.Anonymous, ratelimit.Limit("100/s", 100), responsecache.Cached(), conditional.ETags()).
			Get("/catalog", func(w http.ResponseWriter, _ *http.Request) {
				runs.Add(1)
				w.Header().Set("Cache-Control", "public, max-age=60")
				_, _ = io.WriteString(w, "catalog")
			})
		r.With(idempotency.Required()).Post("/orders", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusCreated)
		})
		return r
	}
}

func TestAllFourComponentsInOneApp(t *testing.T) {
	var runs atomic.Int64
	opts := []fx.Option{fxsvc.Errors(), fxsvc.Authn(behindtest.Verifier{}), fxsvc.RateLimits(), fxsvc.Idempotency(),
		fxsvc.Conditional(), fxsvc.ResponseCache(), fx.Provide(allFour(&runs))}
	app, srv := startApp(t, append(opts, fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))...)
	defer app.RequireStop()
	get := func(headers ...string) *http.Response {
		req, _ := http.NewRequest("GET", "http://"+srv.Addr()+"/catalog", nil)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	first := get()
	etag := first.Header.Get("ETag")
	if first.StatusCode != 200 || etag == "" || first.Header.Get("RateLimit") == "" {
		t.Fatalf("first: %d %v", first.StatusCode, first.Header)
	}
	hit := get()
	if hit.Header.Get("Age") == "" || hit.Header.Get("ETag") != etag {
		t.Fatalf("hit: %v", hit.Header)
	}
	if resp := get("If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("revalidation: %d", resp.StatusCode)
	}
	if runs.Load() != 1 {
		t.Fatalf("handler ran %d times", runs.Load())
	}

	var out, errOut bytes.Buffer
	if code := fxsvc.Run([]string{"check"}, &out, &errOut, append(opts, fxsvc.Serve(fxsvc.Addr("256.0.0.1:1")))...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"ratelimit=100/s burst 100", "cache=anonymous", "conditional=etags", "idempotency=required"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("check does not list %q:\n%s", want, out.String())
		}
	}
}
