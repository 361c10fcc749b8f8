package idempotency_test

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/internal/behindtest"
	"github.com/svckit/svc/modules/idempotency"
	"github.com/svckit/svc/modules/requestid"
	"github.com/svckit/svc/modules/store"
)

// An informational answer (103 Early Hints) is not the response: the
// replay must carry the final status.
func TestAReplayCarriesTheFinalStatusNotAnInformationalOne(t *testing.T) {
	h := &orders{}
	r := chi.NewRouter()
	r.With(idempotency.Required()).Post("/orders", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		h.ServeHTTP(w, r)
	})
	srv := behindtest.Stack(t, r, newComponent(t, store.NewMemory()).Middleware)
	for i := range 2 {
		resp := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, `pen`, "Idempotency-Key", "k1")
		body := behindtest.Body(t, resp)
		if resp.StatusCode != http.StatusCreated || body != `{"id":1,"item":"pen"}` {
			t.Fatalf("request %d: %d %q %v", i, resp.StatusCode, body, resp.Header)
		}
	}
}

// A replay answers the retry: what outer middlewares set for it (its
// request ID) stays its own.
func TestAReplayKeepsTheHeadersOuterMiddlewaresSetForTheRetry(t *testing.T) {
	h := &orders{}
	srv := behindtest.Stack(t, app(h), requestid.Middleware, newComponent(t, store.NewMemory()).Middleware)
	for i, id := range []string{"first-try", "retry"} {
		resp := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, `pen`, "Idempotency-Key", "k1", requestid.Header, id)
		body := behindtest.Body(t, resp)
		if resp.StatusCode != http.StatusCreated || body != `{"id":1,"item":"pen"}` || resp.Header.Get("Location") != "/orders/1" {
			t.Fatalf("request %d: %d %q %v", i, resp.StatusCode, body, resp.Header)
		}
		if got := resp.Header.Get(requestid.Header); got != id {
			t.Fatalf("request %d: X-Request-ID %q, want its own %q", i, got, id)
		}
	}
}
