package authnhuma_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
	svcerrors "github.com/svckit/svc/modules/errors"
)

type greetInput struct {
	Caller authnhuma.OptionalCaller
}

type reportInput struct {
	Caller authnhuma.Caller
	Year   int `query:"year" minimum:"2000" maximum:"2100" default:"2026"`
}

type report struct {
	Body struct {
		Owner string `json:"owner"`
		Year  int    `json:"year"`
	}
}

// A Huma API mounted under /api in a chi router: one anonymous and one
// scoped operation, its document public.
func ExampleNewChi() {
	g, _ := authn.New(fakeVerifier{}, authn.Exclude("/api/openapi.json"))
	res := svcerrors.New()

	r := chi.NewRouter()
	r.Route("/api", func(r chi.Router) {
		api := authnhuma.NewChi(r, huma.DefaultConfig("Example", "1.0.0"),
			authnhuma.Gate(g), authnhuma.Errors(res), authnhuma.Prefix("/api"))
		huma.Get(api, "/greeting", func(_ context.Context, in *greetInput) (*helloOutput, error) {
			if !in.Caller.Authenticated {
				return reply("hello, stranger"), nil
			}
			return reply("hello, " + in.Caller.Subject), nil
		}, authnhuma.Anonymous)
		huma.Get(api, "/reports", func(_ context.Context, in *reportInput) (*report, error) {
			out := &report{}
			out.Body.Owner, out.Body.Year = in.Caller.Subject, in.Year
			return out, nil
		}, authnhuma.Require("read"))
	})
	h, _ := g.Handler(r)
	h = res.Middleware(h)

	for _, c := range []struct{ path, token string }{
		{"/api/greeting", ""}, {"/api/reports", ""}, {"/api/reports?year=1900", "alice-token"},
		{"/api/reports", "alice-token"}, {"/api/openapi.json", ""},
	} {
		req := httptest.NewRequest(http.MethodGet, c.path, nil)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		fmt.Println(c.path, w.Code, w.Header().Get("Content-Type"))
	}
	// Output:
	// /api/greeting 200 application/json
	// /api/reports 401 application/problem+json
	// /api/reports?year=1900 422 application/problem+json
	// /api/reports 200 application/json
	// /api/openapi.json 200 application/openapi+json
}

// The same on a net/http ServeMux, through humago.
func ExampleNewGo() {
	g, _ := authn.New(fakeVerifier{})
	mux := authn.NewServeMux()
	api := authnhuma.NewGo(mux, huma.DefaultConfig("Example", "1.0.0"), authnhuma.Gate(g), authnhuma.Prefix("/api"))
	huma.Get(api, "/greeting", func(_ context.Context, in *greetInput) (*helloOutput, error) {
		return reply("hello"), nil
	}, authnhuma.Anonymous)
	huma.Delete(api, "/items/{id}", func(_ context.Context, in *idInput) (*struct{}, error) {
		return nil, nil
	}, authnhuma.Require("items:write"))
	h, _ := g.Handler(mux)
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/api/greeting"}, {http.MethodDelete, "/api/items/1"},
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(c.method, c.path, nil))
		fmt.Println(c.method, c.path, w.Code)
	}
	// Output:
	// GET /api/greeting 200
	// DELETE /api/items/1 401
}
