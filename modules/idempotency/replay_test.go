package idempotency_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"sync/atomic"
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
	srv := behindtest.Stack(t, app(h), behindtest.Telemetry(t), newComponent(t, store.NewMemory()).Middleware)
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

// A broken body (here a malformed chunk size) is refused in the app's
// error format like every other refusal, not as text/plain.
func TestABrokenBodyIsRefusedInTheRegisteredFormat(t *testing.T) {
	h := &orders{}
	srv := behindtest.Stack(t, app(h), newComponent(t, store.NewMemory()).Middleware)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "POST /orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+behindtest.Alice+
		"\r\nIdempotency-Key: k1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\npen\r\n0\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("%d %v %q", resp.StatusCode, resp.Header, body)
	}
	if h.runs.Load() != 0 {
		t.Fatal("the handler ran")
	}
}

// docs/components.md's list: a 401, 403, 408, 425 or 429 says the request was not
// processed, so it is not stored and the retry runs the handler.
func TestRefusalsThatMeanNotProcessedAreNotStored(t *testing.T) {
	for _, status := range []int{401, 403, 408, 425, 429} {
		var runs atomic.Int64
		r := chi.NewRouter()
		r.With(idempotency.Required()).Post("/orders", func(w http.ResponseWriter, _ *http.Request) {
			if runs.Add(1) == 1 {
				w.WriteHeader(status)
				return
			}
			w.WriteHeader(http.StatusCreated)
		})
		srv := behindtest.Stack(t, r, newComponent(t, store.NewMemory()).Middleware)
		for _, want := range []int{status, 201, 201} {
			resp := behindtest.Do(t, srv, "POST", "/orders", behindtest.Alice, "x", "Idempotency-Key", "k")
			if _ = behindtest.Body(t, resp); resp.StatusCode != want {
				t.Fatalf("%d first: %d, want %d", status, resp.StatusCode, want)
			}
		}
		if n := runs.Load(); n != 2 {
			t.Fatalf("%d first: %d runs, want 2", status, n)
		}
	}
}
