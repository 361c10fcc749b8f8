package authnhuma_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

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

type orderIn struct {
	Body struct {
		Item string `json:"item"`
	}
}

type orderOut struct {
	Status int
	Body   struct {
		ID   int64  `json:"id"`
		Item string `json:"item"`
	}
}

type itemOut struct {
	CacheControl string `header:"Cache-Control"`
	Body         struct {
		Name string `json:"name"`
	}
}

func api(t *testing.T, res *svcerrors.Responses) (http.Handler, *atomic.Int64, *atomic.Int64) {
	var creates, reads atomic.Int64
	r := chi.NewRouter()
	a := authnhuma.NewChi(r, huma.DefaultConfig("Shop", "1.0.0"), authnhuma.Errors(res))
	huma.Post(a, "/orders", func(_ context.Context, in *orderIn) (*orderOut, error) {
		out := &orderOut{Status: http.StatusCreated}
		out.Body.ID, out.Body.Item = creates.Add(1), in.Body.Item
		return out, nil
	}, authnhuma.Use(ratelimit.Limit("100/s", 100), idempotency.Required()))
	huma.Get(a, "/items/{id}", func(context.Context, *struct {
		ID string `path:"id"`
	}) (*itemOut, error) {
		reads.Add(1)
		out := &itemOut{CacheControl: "max-age=60"}
		out.Body.Name = "pen"
		return out, nil
	}, authnhuma.Use(responsecache.Shared(), conditional.ETags()))
	return r, &creates, &reads
}

// fresh builds the components' middleware with stores of their own: the
// process-wide defaults would carry keys and entries from test to test.
func fresh(t *testing.T) []func(http.Handler) http.Handler {
	t.Helper()
	l, err := ratelimit.New()
	if err != nil {
		t.Fatal(err)
	}
	i, err := idempotency.New()
	if err != nil {
		t.Fatal(err)
	}
	c, err := responsecache.New()
	if err != nil {
		t.Fatal(err)
	}
	return []func(http.Handler) http.Handler{l.Middleware, i.Middleware, c.Middleware}
}

func TestHumaOperationsRunTheMarkersBehindTheGate(t *testing.T) {
	router, creates, reads := api(t, svcerrors.New())
	srv := behindtest.Stack(t, router, fresh(t)...)

	behindtest.Problem(t, behindtest.Do(t, srv, "POST", "/orders", "", `{"item":"pen"}`, "Idempotency-Key", "k"), 401, "authentication-required")
	behindtest.Problem(t, behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, `{"item":"pen"}`), 400, "idempotency-key-invalid")
	first := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, `{"item":"pen"}`, "Idempotency-Key", "k", "Content-Type", "application/json")
	firstBody := behindtest.Body(t, first)
	if first.StatusCode != 201 || first.Header.Get("RateLimit") == "" {
		t.Fatalf("first: %d %v %s", first.StatusCode, first.Header, firstBody)
	}
	again := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, `{"item":"pen"}`, "Idempotency-Key", "k", "Content-Type", "application/json")
	if body := behindtest.Body(t, again); again.StatusCode != 201 || body != firstBody || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %v %s", again.StatusCode, again.Header, body)
	}
	behindtest.Problem(t, behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, `{"item":"ink"}`, "Idempotency-Key", "k", "Content-Type", "application/json"),
		422, "idempotency-key-reused")
	if creates.Load() != 1 {
		t.Fatalf("%d creates", creates.Load())
	}

	item := behindtest.Do(t, srv, "GET", "/items/1", behindtest.Alice, "")
	_ = behindtest.Body(t, item)
	etag := item.Header.Get("ETag")
	if item.StatusCode != 200 || etag == "" {
		t.Fatalf("item: %d %v", item.StatusCode, item.Header)
	}
	hit := behindtest.Do(t, srv, "GET", "/items/1", behindtest.Bob, "")
	if body := behindtest.Body(t, hit); hit.Header.Get("Age") == "" || !strings.Contains(body, "pen") {
		t.Fatalf("hit: %v %s", hit.Header, body)
	}
	if resp := behindtest.Do(t, srv, "GET", "/items/1", behindtest.Bob, "", "If-None-Match", etag); resp.StatusCode != 304 {
		t.Fatalf("revalidation: %d", resp.StatusCode)
	}
	if reads.Load() != 1 {
		t.Fatalf("%d reads", reads.Load())
	}
}

// document_idempotency: the idempotency refusals are in the API document
// with the registered error model.
func TestTheDocumentListsTheRefusals(t *testing.T) {
	for _, c := range []struct {
		res   *svcerrors.Responses
		model string
		media string
	}{
		{svcerrors.New(), "#/components/schemas/ProblemDetail", "application/problem+json"},
		{svcerrors.NewTMF("SHOP", ""), "#/components/schemas/TMFError", "application/json"},
	} {
		router, _, _ := api(t, c.res)
		srv := behindtest.Stack(t, router)
		resp := behindtest.Do(t, srv, "GET", "/openapi.json", behindtest.Alice, "")
		var doc apiDoc
		if err := json.Unmarshal([]byte(behindtest.Body(t, resp)), &doc); err != nil {
			t.Fatal(err)
		}
		post := doc.Paths["/orders"]["post"]
		for _, code := range []string{"400", "409", "413", "422", "429"} {
			r, ok := post.Responses[code]
			if !ok || r.Content[c.media].Schema.Ref != c.model {
				t.Fatalf("%s: POST /orders %s: %+v", c.model, code, r)
			}
		}
	}
}

func TestHumaOnServeMux(t *testing.T) {
	var creates atomic.Int64
	mux := http.NewServeMux()
	a := authnhuma.NewGo(mux, huma.DefaultConfig("Shop", "1.0.0"))
	huma.Post(a, "/orders", func(_ context.Context, in *orderIn) (*orderOut, error) {
		out := &orderOut{Status: http.StatusCreated}
		out.Body.ID, out.Body.Item = creates.Add(1), in.Body.Item
		return out, nil
	}, authnhuma.Use(idempotency.Required()))
	srv := behindtest.Stack(t, mux, fresh(t)...)
	for range 3 {
		resp := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, `{"item":"pen"}`, "Idempotency-Key", "k", "Content-Type", "application/json")
		if body := behindtest.Body(t, resp); resp.StatusCode != 201 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	}
	if creates.Load() != 1 {
		t.Fatalf("%d creates", creates.Load())
	}
}

// apiDoc is what the tests read of an OpenAPI document: each operation's
// responses and the schema of each of their media types.
type apiDoc struct {
	Paths map[string]map[string]struct {
		Responses map[string]struct {
			Content map[string]struct {
				Schema struct {
					Ref string `json:"$ref"`
				} `json:"schema"`
			} `json:"content"`
		} `json:"responses"`
	} `json:"paths"`
}
