package interop_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/test/internal/oidcprovider"
)

// A resilient pattern against the real authorization server: the API
// fails a burst (503, a reset connection), then refuses the provider's
// first token; the request ends with a 200 carrying a second token the
// provider issued, and the POST without an Idempotency-Key beside it is
// sent once.
func TestResilientPatternInterop(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	c := ocClient(t, p, &ocClock{now: time.Now()},
		oauthclient.ClientID(oidcprovider.DefaultClientID), oauthclient.ClientSecret(oidcprovider.DefaultClientSecret))
	api, err := oauthclient.ClientCredentials("api", oauthclient.WithoutEnv(), oauthclient.WithClient(c),
		oauthclient.Resilience{MaxAttempts: 4, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	first, err := api.Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.Header.Get("Authorization"))
		n := len(seen)
		mu.Unlock()
		switch {
		case r.Method == http.MethodPost || n == 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case n == 2:
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		case r.Header.Get("Authorization") == "Bearer "+first.Value:
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			w.WriteHeader(http.StatusUnauthorized)
		default:
			io.WriteString(w, "ok")
		}
	}))
	defer srv.Close()
	hc := &http.Client{Transport: api.Transport(&http.Transport{DisableKeepAlives: true})}
	resp, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	mu.Lock()
	got := append([]string(nil), seen...)
	mu.Unlock()
	if resp.StatusCode != 200 || len(got) != 4 || got[3] == got[0] {
		t.Fatalf("status %d, the API saw %d requests: want 503, reset, 401, then 200 with a fresh token", resp.StatusCode, len(got))
	}
	ocVerify(t, p, strings.TrimPrefix(got[3], "GET Bearer "))

	resp, err = hc.Post(srv.URL, "text/plain", strings.NewReader("order"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	mu.Lock()
	posts := len(seen) - 4
	mu.Unlock()
	if resp.StatusCode != 503 || posts != 1 {
		t.Fatalf("POST: status %d after %d requests, want the 503 after one", resp.StatusCode, posts)
	}
}
