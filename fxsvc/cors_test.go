package fxsvc_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/rs/cors"
	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
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
		fxsvc.Authn(bearer.New("http://127.0.0.1:1", "aud")),
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

// Fetch forbids Access-Control-Allow-Origin: * on a credentialed answer, and
// browsers refuse it: credentials with every origin fail the build.
func TestCORSRefusesCredentialsWithEveryOrigin(t *testing.T) {
	for name, opts := range map[string]cors.Options{
		"*":                 {AllowedOrigins: []string{"https://app.example", "*"}, AllowCredentials: true},
		"no origins listed": {AllowCredentials: true},
	} {
		t.Run(name, func(t *testing.T) {
			err := fx.New(fx.NopLogger, fxsvc.CORS(opts), fx.Provide(chi.NewRouter), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"))).Err()
			if err == nil || !strings.Contains(err.Error(), "AllowCredentials") {
				t.Fatalf("err %v, want a refusal naming AllowCredentials", err)
			}
		})
	}
	err := fx.New(fx.NopLogger, fxsvc.CORS(cors.Options{AllowedOrigins: []string{"https://*.app.example"}, AllowCredentials: true}),
		fx.Provide(chi.NewRouter), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0"))).Err()
	if err != nil {
		t.Fatalf("credentials with listed origins: %v", err)
	}
}

// Answers that depend on Origin say so (Vary: Origin), so that a shared
// cache never hands one origin's answer to another: the preflight, the
// app's answer and the error format's 404 alike.
func TestCORSAnswersVaryByOrigin(t *testing.T) {
	router := func() *chi.Mux {
		r := chi.NewRouter()
		r.Get("/hello", func(w http.ResponseWriter, _ *http.Request) {})
		return r
	}
	app, srv := startApp(t, fxsvc.Errors(),
		fxsvc.CORS(cors.Options{AllowedOrigins: []string{"https://app.example"}, AllowCredentials: true}),
		fx.Provide(router), fxsvc.Serve(fxsvc.Addr("127.0.0.1:0")))
	defer app.RequireStop()
	base := "http://" + srv.Addr()
	for _, tc := range []struct {
		method, path string
		preflight    bool
		status       int
	}{
		{http.MethodOptions, "/hello", true, http.StatusNoContent},
		{http.MethodGet, "/hello", false, http.StatusOK},
		{http.MethodGet, "/nope", false, http.StatusNotFound},
	} {
		req, _ := http.NewRequest(tc.method, base+tc.path, nil)
		req.Header.Set("Origin", "https://app.example")
		if tc.preflight {
			req.Header.Set("Access-Control-Request-Method", "GET")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		vary := strings.Join(resp.Header.Values("Vary"), ",")
		if resp.StatusCode != tc.status || !strings.Contains(vary, "Origin") ||
			resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
			resp.Header.Get("Access-Control-Allow-Credentials") != "true" {
			t.Errorf("%s %s: %d %v", tc.method, tc.path, resp.StatusCode, resp.Header)
		}
	}
}
