package fxsvc_test

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/rs/cors"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
)

// A preflight to a protected route is answered before authentication, and
// the gate's 401 carries the CORS headers a browser needs to read it.
func TestCORSAnswersPreflightsBeforeTheGate(t *testing.T) {
	router := func() *chi.Mux {
		r := chi.NewRouter()
		r.With(authn.Require("read")).Get("/reports", func(w http.ResponseWriter, _ *http.Request) {})
		return r
	}
	app, srv := startApp(t,
		fxsvc.Errors(),
		fxsvc.Authn(authn.Discover("http://127.0.0.1:1", "aud")),
		fxsvc.CORS(cors.Options{AllowedOrigins: []string{"https://app.example"}, AllowedHeaders: []string{"Authorization"}}),
		fx.Provide(router),
		fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")),
	)
	defer app.RequireStop()
	base := "http://" + srv.Addr()

	pre, _ := http.NewRequest(http.MethodOptions, base+"/reports", nil)
	pre.Header.Set("Origin", "https://app.example")
	pre.Header.Set("Access-Control-Request-Method", "GET")
	pre.Header.Set("Access-Control-Request-Headers", "authorization")
	resp, err := http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}

	get, _ := http.NewRequest(http.MethodGet, base+"/reports", nil)
	get.Header.Set("Origin", "https://app.example")
	resp, err = http.DefaultClient.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Fatalf("refusal: %d %v", resp.StatusCode, resp.Header)
	}

	other, _ := http.NewRequest(http.MethodOptions, base+"/reports", nil)
	other.Header.Set("Origin", "https://evil.example")
	other.Header.Set("Access-Control-Request-Method", "GET")
	resp, err = http.DefaultClient.Do(other)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("an origin not allowed got %v", resp.Header)
	}
}
