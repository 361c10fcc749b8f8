package oauthclient_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/svckit/svc/modules/oauthclient"
)

// Issue 22 item 5: at most Bulkhead requests of a pattern are in flight,
// from the request's start until its body is closed; one more is refused
// at once, never reaching the API.
func TestBulkheadRefusesTheRequestOverTheCap(t *testing.T) {
	release := make(chan struct{})
	var arrived atomic.Int64
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		w.WriteHeader(200)
		w.(http.Flusher).Flush() // headers out: RoundTrip returns, the body stays open
		if r.URL.Path == "/slow" {
			<-release
		}
		io.WriteString(w, "done")
	}))
	t.Cleanup(api.Close)
	t.Cleanup(func() { close(release) })
	s := newTokenServer(t)
	p := newCC(t, newClient(t, s, newClock(), oauthclient.Bulkhead(2)), "billing")
	hc := p.Client()

	// Two answers whose bodies are still being read hold both places.
	var open []*http.Response
	for range 2 {
		resp, err := hc.Get(api.URL + "/slow")
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, resp)
	}
	_, err := hc.Get(api.URL + "/fast")
	var full *oauthclient.BulkheadFullError
	if !errors.As(err, &full) || full.Pattern != "billing" || full.Limit != 2 {
		t.Fatalf("third request: err = %v, want a BulkheadFullError for billing, limit 2", err)
	}
	if !strings.Contains(err.Error(), "SVC_OAUTHCLIENT_BULKHEAD") {
		t.Fatalf("the error does not name the setting: %v", err)
	}
	if arrived.Load() != 2 {
		t.Fatalf("the API saw %d requests: the refused one reached it", arrived.Load())
	}
	// Closing one body (twice: the place is given back once) frees one place.
	open[0].Body.Close()
	open[0].Body.Close()
	resp, err := hc.Get(api.URL + "/fast")
	if err != nil {
		t.Fatalf("after a body was closed: %v", err)
	}
	resp.Body.Close()
	if _, err := hc.Get(api.URL + "/fast"); err != nil {
		t.Fatalf("a closed answer kept its place: %v", err)
	}
	open[1].Body.Close()
}

// A request that fails gives its place back, and so does one whose token
// could not be had.
func TestBulkheadPlaceIsGivenBackOnFailure(t *testing.T) {
	s := newTokenServer(t)
	s.then(answer{status: 500})
	p := newCC(t, newClient(t, s, newClock(), oauthclient.Bulkhead(1)), "billing")
	for range 3 {
		_, err := p.Client().Get("http://127.0.0.1:1/unreachable")
		var ue *oauthclient.UnavailableError
		var full *oauthclient.BulkheadFullError
		if errors.As(err, &full) || !errors.As(err, &ue) {
			t.Fatalf("err = %v, want the token failure, not a full bulkhead", err)
		}
	}
}

// MaxConcurrentFetches caps the token fetches running at once across patterns: the
// second pattern's fetch waits for the first to end.
func TestMaxConcurrentFetchesCapsConcurrentFetchesAcrossPatterns(t *testing.T) {
	s := newTokenServer(t)
	release := s.hold()
	c := newClient(t, s, newClock(), oauthclient.MaxConcurrentFetches(1))
	a, b := newCC(t, c, "a"), newCC(t, c, "b")

	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, p := range []*oauthclient.Pattern{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := p.Token(context.Background())
			errs <- err
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.count.Load() < 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	// The held server answers nothing: had the cap not held, the second
	// fetch would have arrived by now too. A short look suffices to fail a
	// broken cap most of the time; it can never fail a working one.
	time.Sleep(50 * time.Millisecond)
	if n := s.count.Load(); n != 1 {
		t.Fatalf("%d token requests in flight under MaxConcurrentFetches(1)", n)
	}
	release()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := s.count.Load(); n != 2 {
		t.Fatalf("%d token requests, want 2", n)
	}
}

func TestBulkheadAndFetchSettings(t *testing.T) {
	for _, tc := range []struct{ name, value, wantIn string }{
		{"SVC_OAUTHCLIENT_BULKHEAD", "lots", "whole number"},
		{"SVC_OAUTHCLIENT_BULKHEAD", "-1", "negative"},
		{"SVC_OAUTHCLIENT_FETCH", "4x", "whole number"},
		{"SVC_OAUTHCLIENT_FETCH", "-2", "negative"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			t.Setenv("SVC_OAUTHCLIENT_TOKEN_ENDPOINT", "https://as.example/token")
			t.Setenv("SVC_OAUTHCLIENT_CLIENT_ID", "svc")
			t.Setenv("SVC_OAUTHCLIENT_CLIENT_SECRET", "s3cret-value")
			t.Setenv(tc.name, tc.value)
			_, err := oauthclient.New()
			var ce *oauthclient.ConfigError
			if !errors.As(err, &ce) || ce.Setting != tc.name || !strings.Contains(err.Error(), tc.wantIn) {
				t.Fatalf("err = %v, want a ConfigError on %s saying %q", err, tc.name, tc.wantIn)
			}
			if strings.Contains(err.Error(), tc.value) {
				t.Fatalf("the error repeats the value: %v", err)
			}
		})
	}
	for _, o := range []oauthclient.Option{oauthclient.Bulkhead(-1), oauthclient.MaxConcurrentFetches(-1)} {
		if _, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint("https://as.example/token"),
			oauthclient.ClientID("svc"), oauthclient.ClientSecret("s3cret-value"), o); err == nil {
			t.Errorf("a negative cap was accepted")
		}
	}
}

// A websocket through Pattern.Client with a Bulkhead: the 101 answer's
// body is the upgraded connection and stays writable, and the place is
// held until the websocket closes.
func TestBulkheadKeepsAnUpgradedConnectionWritable(t *testing.T) {
	auth := make(chan string, 1)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ws" {
			io.WriteString(w, "ok")
			return
		}
		auth <- r.Header.Get("Authorization")
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		typ, msg, err := ws.Read(r.Context())
		if err != nil {
			return
		}
		ws.Write(r.Context(), typ, append([]byte("echo "), msg...))
		ws.Read(r.Context()) // until the client closes
	}))
	t.Cleanup(api.Close)
	s := newTokenServer(t)
	p := newCC(t, newClient(t, s, newClock(), oauthclient.Bulkhead(1)), "billing")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(api.URL, "http")+"/ws", &websocket.DialOptions{HTTPClient: p.Client()})
	if err != nil {
		t.Fatalf("Dial through the bulkhead: %v (response %v)", err, resp)
	}
	if got := <-auth; !strings.HasPrefix(got, "Bearer ") {
		t.Fatalf("the upgrade request carried Authorization %q, want the pattern's token", got)
	}
	if err := ws.Write(ctx, websocket.MessageText, []byte("hi")); err != nil {
		t.Fatalf("Write on the upgraded connection: %v", err)
	}
	if _, msg, err := ws.Read(ctx); err != nil || string(msg) != "echo hi" {
		t.Fatalf("Read = %q, %v; want the echo", msg, err)
	}
	// The open websocket holds the one place.
	var full *oauthclient.BulkheadFullError
	if _, err := p.Client().Get(api.URL + "/other"); !errors.As(err, &full) {
		t.Fatalf("a request beside the open websocket: err = %v, want BulkheadFullError", err)
	}
	ws.Close(websocket.StatusNormalClosure, "")
	eventually(t, "the closed websocket gives its place back", func() bool {
		resp, err := p.Client().Get(api.URL + "/other")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}
