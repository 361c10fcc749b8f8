package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/telemetry"
)

type itemOutput struct {
	Body struct {
		ID string `json:"id"`
	}
}

// A Huma operation mounted under a prefix is named by its full template,
// the one the gate found, on an admitted request and on a refusal alike.
func TestHumaOperationIsNamedByItsTemplate(t *testing.T) {
	g, err := authn.New(fakeVerifier{})
	if err != nil {
		t.Fatal(err)
	}
	res := svcerrors.New()
	r := chi.NewRouter()
	r.Route("/api", func(r chi.Router) {
		api := authnhuma.NewChi(r, huma.DefaultConfig("T", "1"), authnhuma.Gate(g), authnhuma.Errors(res), authnhuma.Prefix("/api"))
		huma.Get(api, "/items/{id}", func(_ context.Context, in *struct {
			ID string `path:"id"`
		}) (*itemOutput, error) {
			out := &itemOutput{}
			out.Body.ID = in.ID
			return out, nil
		}, authnhuma.Require("read"))
	})
	gated, err := g.Handler(r)
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zapcore.InfoLevel)
	h := newTelemetry(t, telemetry.AccessLog(zap.New(core))).Handler(res.Middleware(gated))
	for token, status := range map[string]int{"alice-token": 200, "": 401} {
		logs.TakeAll()
		req := httptest.NewRequest(http.MethodGet, "/api/items/5", nil)
		if token != "" {
			req.Header = bearerHeader(token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		f := fieldsOf(only(t, logs, telemetry.AccessLogger))
		if w.Code != status || f["http.route"] != "/api/items/{id}" {
			t.Errorf("token %q: %d, http.route %v", token, w.Code, f["http.route"])
		}
	}
}
