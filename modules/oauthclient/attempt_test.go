package oauthclient_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
)

// An attempt that hangs is cut after AttemptTimeout and retried (a GET),
// well inside the request's deadline; with no attempt left the request
// fails with a timeout that names the setting; a POST without an
// Idempotency-Key is cut and not sent again.
func TestResilientAttemptTimeoutCutsAHungAttempt(t *testing.T) {
	t.Parallel()
	c := newClient(t, newTokenServer(t), newClock())
	hang := make(chan struct{}) // never closed: the handler ends when the client gives up
	api := newFaultAPI(t, fault{hold: hang})
	// Generous beside a loopback answer: only the hung attempt meets it.
	const cut = 300 * time.Millisecond
	hc, p, w := resilientClient(t, c, oauthclient.Resilience{AttemptTimeout: cut, NoBreaker: true})
	mustToken(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := send(t, hc, ctx, http.MethodGet, api.URL, "")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v: want the retry's 200", resp, err)
	}
	if api.hits.Load() != 2 || len(w.all()) != 1 {
		t.Fatalf("%d hits, %d waits: want the hung attempt and one retry", api.hits.Load(), len(w.all()))
	}

	hc, p, _ = resilientClient(t, c, oauthclient.Resilience{MaxAttempts: 1, AttemptTimeout: cut, NoBreaker: true})
	mustToken(t, p)
	api.mu.Lock()
	api.script = []fault{{hold: hang}}
	api.mu.Unlock()
	_, err = send(t, hc, ctx, http.MethodGet, api.URL, "")
	var ne net.Error
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() ||
		!strings.Contains(err.Error(), "oauthclient.Resilience.AttemptTimeout") || !strings.Contains(err.Error(), "SVC_CLIENTCREDENTIALS_API_RESILIENCE_ATTEMPT_TIMEOUT") {
		t.Fatalf("err %v, want a timeout naming the field and the variable", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the request's own deadline ran out: the attempt was not cut")
	}

	api.mu.Lock()
	api.script = []fault{{hold: hang}}
	api.mu.Unlock()
	before := api.hits.Load()
	hc, p, _ = resilientClient(t, c, oauthclient.Resilience{AttemptTimeout: cut, NoBreaker: true})
	mustToken(t, p)
	if _, err := send(t, hc, ctx, http.MethodPost, api.URL, "pay"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("POST: err %v, want the attempt's timeout", err)
	}
	if got := api.hits.Load() - before; got != 1 {
		t.Fatalf("POST without an Idempotency-Key sent %d times, want 1", got)
	}
}

// AttemptTimeout bounds the wait for the answer, not its reading: a body
// that takes longer than it to arrive is read whole.
func TestResilientAttemptTimeoutLetsTheBodyBeRead(t *testing.T) {
	t.Parallel()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first half, ")
		w.(http.Flusher).Flush()
		select {
		case <-time.After(time.Second):
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "second half")
	}))
	t.Cleanup(api.Close)
	hc, p, _ := resilientClient(t, newClient(t, newTokenServer(t), newClock()), oauthclient.Resilience{AttemptTimeout: 300 * time.Millisecond})
	mustToken(t, p)
	resp, err := hc.Get(api.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || string(body) != "first half, second half" {
		t.Fatalf("body %q, %v: want it whole", body, err)
	}
}

// SVC_CLIENTCREDENTIALS_<NAME>_RESILIENCE_ATTEMPT_TIMEOUT sets
// AttemptTimeout where code left it 0, is refused on a pattern without
// Resilience, and when it is not a positive duration.
func TestAttemptTimeoutVariable(t *testing.T) {
	c := newClient(t, newTokenServer(t), newClock())
	const name = "SVC_CLIENTCREDENTIALS_API_RESILIENCE_ATTEMPT_TIMEOUT"
	build := func(opts ...oauthclient.PatternOption) (*oauthclient.Pattern, error) {
		return oauthclient.ClientCredentials("api", append([]oauthclient.PatternOption{oauthclient.WithClient(c)}, opts...)...)
	}
	t.Setenv("SVC_CLIENTCREDENTIALS_API_RESILIENCE", "on")
	t.Setenv(name, "1.5")
	if p, err := build(); err != nil || oauthclient.AttemptTimeout(p) != 1500*time.Millisecond {
		t.Fatalf("%v: want 1.5s from the variable", err)
	}
	if p, err := build(oauthclient.Resilience{AttemptTimeout: time.Second}); err != nil || oauthclient.AttemptTimeout(p) != time.Second {
		t.Fatalf("%v: want the code's 1s", err)
	}
	if p, err := build(oauthclient.Resilience{}); err != nil || oauthclient.AttemptTimeout(p) != 1500*time.Millisecond {
		t.Fatalf("%v: want 1.5s where the code left it 0", err)
	}
	for _, bad := range []string{"soon", "0s", "-2s"} {
		t.Setenv(name, bad)
		var ce *oauthclient.ConfigError
		if _, err := build(); !errors.As(err, &ce) || ce.Setting != name || strings.Contains(err.Error(), bad) {
			t.Errorf("%q: err %v, want a *ConfigError naming %s, not repeating the value", bad, err, name)
		}
	}
	t.Setenv(name, "2s")
	t.Setenv("SVC_CLIENTCREDENTIALS_API_RESILIENCE", "off")
	var ce *oauthclient.ConfigError
	if _, err := build(); !errors.As(err, &ce) || ce.Setting != name || !strings.Contains(ce.Problem, "SVC_CLIENTCREDENTIALS_API_RESILIENCE=on") {
		t.Fatalf("err %v, want a *ConfigError saying it needs Resilience", err)
	}
}
