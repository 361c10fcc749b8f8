package fxsvc_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/conditional"
)

func conditionalRouter() *chi.Mux {
	r := chi.NewRouter()
	r.With(conditional.ETags()).Get("/orders/1", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("order")) })
	r.With(conditional.Require(func(*http.Request) (string, time.Time, error) {
		return conditional.ETagOf([]byte("order")), time.Time{}, nil
	})).Put("/orders/1", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	return r
}

func TestConditionalAnswersBehindTheGateAndIsListed(t *testing.T) {
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Authn(behindtest.Verifier{}), fxsvc.Conditional(),
		fx.Provide(conditionalRouter), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	send := func(method string, headers ...string) int {
		req, _ := http.NewRequest(method, "http://"+srv.Addr()+"/orders/1", nil)
		req.Header.Set("Authorization", "Bearer "+behindtest.Alice)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	tag := conditional.ETagOf([]byte("order"))
	for _, c := range []struct {
		method  string
		headers []string
		want    int
	}{
		{"GET", []string{"If-None-Match", tag}, 304},
		{"PUT", nil, 428},
		{"PUT", []string{"If-Match", `"old"`}, 412},
		{"PUT", []string{"If-Match", tag}, 204},
	} {
		if got := send(c.method, c.headers...); got != c.want {
			t.Fatalf("%s %v: %d, want %d", c.method, c.headers, got, c.want)
		}
	}
	var out, errOut bytes.Buffer
	code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Provide(conditionalRouter), fxsvc.Errors(),
		fxsvc.Authn(behindtest.Verifier{}), fxsvc.Conditional(), fxsvc.Serve(fxsvc.Addr("256.0.0.1:1")))
	if code != 0 || !strings.Contains(out.String(), "conditional=etags") || !strings.Contains(out.String(), "conditional=require") {
		t.Fatalf("exit %d:\n%s%s", code, out.String(), errOut.String())
	}
}
