package oauthclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// flakyIssuer serves its metadata only once up is set, and counts the
// discovery requests it gets.
type flakyIssuer struct {
	*httptest.Server
	up    atomic.Bool
	calls atomic.Int32
}

func newFlakyIssuer(t *testing.T) *flakyIssuer {
	f := &flakyIssuer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/.well-known/") {
			http.NotFound(w, r)
			return
		}
		f.calls.Add(1)
		if !f.up.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"issuer":%q,"token_endpoint":%q}`, f.URL, f.URL+"/token")
	}))
	t.Cleanup(f.Close)
	return f
}

func readyClient(t *testing.T, clock *fakeClock, opts ...oauthclient.Option) *oauthclient.Client {
	t.Helper()
	all := append([]oauthclient.Option{
		oauthclient.WithoutEnv(), oauthclient.ClientID("svc"),
		oauthclient.ClientSecret(secret.String("s3cret-value")), oauthclient.Clock(clock.Now),
		oauthclient.RetryInterval(10 * time.Second),
	}, opts...)
	c, err := oauthclient.New(all...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// waitFor polls cond; the bound only keeps a broken build from hanging.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestReadyWithATokenEndpointNeedsNoDiscovery(t *testing.T) {
	c := readyClient(t, newClock(), oauthclient.TokenEndpoint("http://127.0.0.1:1/token"))
	if err := c.Ready(); err != nil {
		t.Fatal(err)
	}
}

func TestReadyDiscoversAServerThatWasDownAtStartWithoutAnyTokenRequest(t *testing.T) {
	iss := newFlakyIssuer(t)
	clock := newClock()
	c := readyClient(t, clock, oauthclient.Issuer(iss.URL))
	if err := c.Open(context.Background()); err != nil {
		t.Fatalf("a server that is down must not fail Open: %v", err)
	}
	opened := iss.calls.Load()
	if opened == 0 {
		t.Fatal("Open did not try discovery")
	}
	err := c.Ready()
	if !errors.Is(err, oauthclient.ErrNotDiscovered) {
		t.Fatalf("want ErrNotDiscovered, got %v", err)
	}
	var ue *oauthclient.UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("the remembered failure is not wrapped: %v", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("the secret leaked: %v", err)
	}
	// Within the retry interval, probes do not call the server again.
	for range 5 {
		_ = c.Ready()
	}
	if got := iss.calls.Load(); got != opened {
		t.Fatalf("probes inside the retry interval called the server: %d calls, want %d", got, opened)
	}
	iss.up.Store(true)
	clock.Advance(11 * time.Second)
	waitFor(t, "discovery after the retry interval", func() bool { return c.Ready() == nil })
}

func TestReadyAfterCloseIsErrClosed(t *testing.T) {
	iss := newFlakyIssuer(t)
	c := readyClient(t, newClock(), oauthclient.Issuer(iss.URL))
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := iss.calls.Load()
	if err := c.Ready(); !errors.Is(err, oauthclient.ErrClosed) {
		t.Fatalf("want ErrClosed, got %v", err)
	}
	if iss.calls.Load() != before {
		t.Fatal("a closed client started a discovery")
	}
}
