// Benchmarks of the components behind the gate against the work they
// save, each pair in one run (bench/internal/pair):
//
//   - an idempotent replay against running the handler it replays;
//
//   - a response-cache hit against bare chi serving the same route;
//
//   - a 304 Not Modified against a 200 of the same body, both through the
//     ETags marker.
//
//     cd bench && go test -run '^$' -bench . -benchmem -count 6 ./behind
package behind_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/bench/internal/pair"
	"github.com/svckit/svc/modules/conditional"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/responsecache"
	"github.com/svckit/svc/modules/store"
)

type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += len(p)
	return len(p), nil
}

// catalog is a handler of typical weight: it encodes a small JSON document.
func catalog(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"items": []map[string]any{{"sku": "pen-1", "price": 1.5}, {"sku": "ink-2", "price": 4.25}, {"sku": "paper-3", "price": 9.99}},
		"page":  1,
	})
}

func createOrder(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Item string `json:"item"`
	}
	_ = json.NewDecoder(r.Body).Decode(&in)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Location", "/orders/1")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{"id": 1, "item": in.Item, "status": "open"})
}

func runner(b *testing.B, h http.Handler, method, path string, want int, body string, headers ...string) func() {
	w := &discardWriter{h: http.Header{}}
	// One request, its body rewound each time: parsing a new request would
	// cost more than what is measured.
	r := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	rd := strings.NewReader(body)
	rc := io.NopCloser(rd)
	return func() {
		if body != "" {
			rd.Reset(body)
			r.Body, r.ContentLength = rc, int64(len(body))
		}
		clear(w.h)
		w.status = 0
		h.ServeHTTP(w, r)
		if w.status != want {
			b.Fatalf("%s %s: status %d, want %d", method, path, w.status, want)
		}
	}
}

func report(b *testing.B, a, z func(), an, zn string) {
	a()
	z()
	b.ReportAllocs()
	ca, cz := pair.Paired(b, 32, a, z)
	pair.Report(b, an, zn, ca, cz)
}

// An idempotent replay against running the handler: the replay skips the
// decode and encode but reads and hashes the request body.
func BenchmarkIdempotentReplayPaired(b *testing.B) {
	comp, err := idempotency.New(idempotency.Store(store.NewMemory()))
	if err != nil {
		b.Fatal(err)
	}
	r := chi.NewRouter()
	r.With(idempotency.Required()).Post("/orders", createOrder)
	bare := chi.NewRouter()
	bare.Post("/orders", createOrder)
	replay := runner(b, comp.Middleware(r), "POST", "/orders", 201, `{"item":"pen"}`, "Idempotency-Key", "order-1")
	run := runner(b, bare, "POST", "/orders", 201, `{"item":"pen"}`)
	report(b, replay, run, "replay", "handler")
}

// A cache hit against bare chi serving the same route.
func BenchmarkCacheHitPaired(b *testing.B) {
	comp, err := responsecache.New(responsecache.Store(store.NewMemory()))
	if err != nil {
		b.Fatal(err)
	}
	r := chi.NewRouter()
	r.With(responsecache.Cached()).Get("/catalog", catalog)
	bare := chi.NewRouter()
	bare.Get("/catalog", catalog)
	report(b, runner(b, comp.Middleware(r), "GET", "/catalog", 200, ""), runner(b, bare, "GET", "/catalog", 200, ""), "hit", "chi")
}

// A 304 against a 200 of the same body through the ETags marker.
func BenchmarkNotModifiedPaired(b *testing.B) {
	r := chi.NewRouter()
	r.With(conditional.ETags()).Get("/catalog", catalog)
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest("GET", "/catalog", nil))
	etag := rec.Header().Get("ETag")
	report(b, runner(b, r, "GET", "/catalog", 304, "", "If-None-Match", etag), runner(b, r, "GET", "/catalog", 200, ""), "304", "200")
}
