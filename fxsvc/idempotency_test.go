package fxsvc_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/idempotency"
)

func idempotentRouter() *chi.Mux {
	r := chi.NewRouter()
	r.With(idempotency.Required()).Post("/orders", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
	})
	return r
}

func TestIdempotencyRunsBehindTheGateAndIsListed(t *testing.T) {
	app, srv := startApp(t, fxsvc.Errors(), fxsvc.Authn(behindtest.Verifier{}), fxsvc.Idempotency(),
		fx.Provide(idempotentRouter), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	send := func(token string) *http.Response {
		req, _ := http.NewRequest("POST", "http://"+srv.Addr()+"/orders", strings.NewReader("x"))
		req.Header.Set("Idempotency-Key", "k")
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
	if resp := send(""); resp.StatusCode != 401 {
		t.Fatalf("no token: %d", resp.StatusCode)
	}
	if resp := send(behindtest.Alice); resp.StatusCode != 201 || resp.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %v", resp.StatusCode, resp.Header)
	}
	if resp := send(behindtest.Alice); resp.StatusCode != 201 || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %v", resp.StatusCode, resp.Header)
	}

	var out, errOut bytes.Buffer
	code := fxsvc.Run([]string{"check"}, &out, &errOut, fx.Provide(idempotentRouter), fxsvc.Errors(),
		fxsvc.Authn(behindtest.Verifier{}), fxsvc.Idempotency(), fxsvc.Serve(fxsvc.Addr("256.0.0.1:1")))
	if code != 0 || !strings.Contains(out.String(), "idempotency=required") {
		t.Fatalf("exit %d:\n%s%s", code, out.String(), errOut.String())
	}
}
