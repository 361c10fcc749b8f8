package main

import (
	"context"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/conditional"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/ratelimit"
)

type greeting struct {
	Body struct {
		Message string `json:"message" example:"hello, alice"`
	}
}

type greetingInput struct {
	Caller authnhuma.OptionalCaller // the caller if any: the operation is anonymous
}

type reportInput struct {
	Caller authnhuma.Caller // the verified caller, typed
	Year   int              `query:"year" minimum:"2000" maximum:"2100" default:"2026"`
}

type report struct {
	Body struct {
		Owner string `json:"owner"`
		Year  int    `json:"year"`
	}
}

// mountAPI mounts a Huma API under /api: GET /api/greeting is anonymous
// and rate-limited, GET /api/reports needs the read scope and answers
// If-None-Match with 304 (authnhuma.Use puts the components' markers on Huma
// operations; `check` lists them as on chi routes). Its documentation (the document
// at /api/openapi.json, .yaml, -3.0.json, -3.0.yaml, the page at /api/docs
// and the schemas at /api/schemas/*) is public through PublicDocs; the
// document names the gate's scheme and refusals in the registered error
// format.
func mountAPI(r chi.Router, g *authn.Gate, res *svcerrors.Responses) {
	r.Route("/api", func(r chi.Router) {
		api := authnhuma.NewChi(r, huma.DefaultConfig("svc example", "1.0.0"),
			authnhuma.Gate(g), authnhuma.Errors(res), authnhuma.Prefix("/api"), authnhuma.PublicDocs())
		huma.Get(api, "/greeting", func(_ context.Context, in *greetingInput) (*greeting, error) {
			out := &greeting{}
			out.Body.Message = "hello, stranger"
			if in.Caller.Authenticated {
				out.Body.Message = "hello, " + in.Caller.Subject
			}
			return out, nil
		}, authnhuma.Anonymous, authnhuma.Use(ratelimit.Limit("5/s", 10)))
		huma.Get(api, "/reports", func(_ context.Context, in *reportInput) (*report, error) {
			out := &report{}
			out.Body.Owner, out.Body.Year = in.Caller.Subject, in.Year
			return out, nil
		}, authnhuma.Require("read"), authnhuma.Use(conditional.ETags()))
	})
}
