package authnhuma_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/authn/authnhuma"
	"github.com/svckit/svc/modules/conditional"
	svcerrors "github.com/svckit/svc/modules/errors"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/ratelimit"
	"github.com/svckit/svc/modules/responsecache"
)

// markedDoc is what the test reads of each operation: its header
// parameters, and each response's headers.
type markedDoc struct {
	Paths map[string]map[string]struct {
		Parameters []struct {
			Name     string `json:"name"`
			In       string `json:"in"`
			Required bool   `json:"required"`
		} `json:"parameters"`
		Responses map[string]struct {
			Headers map[string]json.RawMessage `json:"headers"`
		} `json:"responses"`
	} `json:"paths"`
}

type reportOut struct {
	Body struct {
		Total int `json:"total"`
	}
}

type orderBody struct {
	Body struct {
		Item string `json:"item"`
	}
}

// The API document lists what each component's markers add to a Huma
// operation (issue 24 item 16): conditional.ETags the If-None-Match
// parameter, the ETag header and 304; conditional.Require If-Match and
// 412/428; a rate limit RateLimit and RateLimit-Policy on its answers and
// its 429; idempotency the Idempotency-Key parameter, Idempotent-Replayed
// and its refusals; the cache Age. A write marker adds nothing to a GET.
func TestTheDocumentListsTheComponentsHeadersAndAnswers(t *testing.T) {
	current := func(*http.Request) (string, time.Time, error) { return `"v1"`, time.Time{}, nil }
	register := func(api huma.API) {
		read := func(context.Context, *struct{}) (*reportOut, error) { return &reportOut{}, nil }
		write := func(context.Context, *orderBody) (*reportOut, error) { return &reportOut{}, nil }
		huma.Get(api, "/reports", read, authnhuma.Use(conditional.ETags(), responsecache.Cached(),
			conditional.Require(current), idempotency.Required()))
		huma.Put(api, "/reports", write, authnhuma.Use(conditional.Require(current), conditional.ETags()))
		huma.Post(api, "/orders", write, authnhuma.Use(ratelimit.Limit("10/s", 20), idempotency.Optional()))
		grp := huma.NewGroup(api, "/limited")
		authnhuma.Group(grp, ratelimit.Limit("5/s", 5))
		huma.Get(grp, "/stats", read)
	}
	apis := map[string]func() http.Handler{
		"chi": func() http.Handler {
			r := chi.NewRouter()
			register(authnhuma.NewChi(r, huma.DefaultConfig("Shop", "1.0.0"), authnhuma.Errors(svcerrors.New())))
			return r
		},
		"servemux": func() http.Handler {
			mux := http.NewServeMux()
			register(authnhuma.NewGo(mux, huma.DefaultConfig("Shop", "1.0.0"), authnhuma.Errors(svcerrors.New())))
			return mux
		},
	}
	type op struct {
		path, method string
		params       map[string]bool // name → required
		headers      map[string][]string
		absent       []string // responses the operation must not list
	}
	ops := []op{
		{"/reports", "get", map[string]bool{"If-None-Match": false},
			map[string][]string{"200": {"ETag", "Age"}, "304": {"ETag", "Age"}}, []string{"412", "428"}},
		{"/reports", "put", map[string]bool{"If-Match": false},
			map[string][]string{"200": nil, "412": nil, "428": nil}, []string{"304"}},
		{"/orders", "post", map[string]bool{"Idempotency-Key": false},
			map[string][]string{"200": {"RateLimit", "RateLimit-Policy", "Idempotent-Replayed"}, "429": {"RateLimit", "RateLimit-Policy", "Retry-After"},
				"400": nil, "409": nil, "422": nil}, nil},
		{"/limited/stats", "get", map[string]bool{},
			map[string][]string{"200": {"RateLimit", "RateLimit-Policy"}, "429": {"RateLimit", "RateLimit-Policy"}}, nil},
	}
	for name, build := range apis {
		t.Run(name, func(t *testing.T) {
			srv := behindtest.Stack(t, build())
			resp := behindtest.Do(t, srv, "GET", "/openapi.json", behindtest.Alice, "")
			var doc markedDoc
			if err := json.Unmarshal([]byte(behindtest.Body(t, resp)), &doc); err != nil {
				t.Fatal(err)
			}
			for _, o := range ops {
				got := doc.Paths[o.path][o.method]
				var headerParams []string
				for _, p := range got.Parameters {
					if p.In == "header" {
						headerParams = append(headerParams, p.Name)
						if want, ok := o.params[p.Name]; ok && p.Required != want {
							t.Errorf("%s %s: %s required=%v", o.method, o.path, p.Name, p.Required)
						}
					}
				}
				for p := range o.params {
					if !slices.Contains(headerParams, p) {
						t.Errorf("%s %s: no %s parameter (has %v)", o.method, o.path, p, headerParams)
					}
				}
				if len(headerParams) != len(o.params) {
					t.Errorf("%s %s: header parameters %v, want %v", o.method, o.path, headerParams, o.params)
				}
				for code, headers := range o.headers {
					r, ok := got.Responses[code]
					if !ok {
						t.Errorf("%s %s: no %s response", o.method, o.path, code)
						continue
					}
					for _, h := range headers {
						if _, ok := r.Headers[h]; !ok {
							t.Errorf("%s %s %s: no %s header (has %v)", o.method, o.path, code, h, keys(r.Headers))
						}
					}
				}
				for _, code := range o.absent {
					if _, ok := got.Responses[code]; ok {
						t.Errorf("%s %s lists %s", o.method, o.path, code)
					}
				}
			}
		})
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
