package oauthclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
)

func newExchange(t testing.TB, c *oauthclient.Client, name string, opts ...oauthclient.PatternOption) *oauthclient.Pattern {
	t.Helper()
	p, err := oauthclient.TokenExchange(name, append([]oauthclient.PatternOption{oauthclient.WithoutEnv(), oauthclient.WithClient(c)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func exchangeFor(t testing.TB, p *oauthclient.Pattern, caller string) string {
	t.Helper()
	tok, err := p.TokenFor(context.Background(), caller)
	if err != nil {
		t.Fatalf("TokenFor: %v", err)
	}
	return tok.Value
}

func TestTokenExchangeRequest(t *testing.T) {
	s := newTokenServer(t)
	c := newClient(t, s, newClock())
	caller := callerJWT(map[string]any{"sub": "alice", "exp": time.Now().Add(time.Hour).Unix()})
	p := newExchange(t, c, "orders", oauthclient.Audience("orders-api"), oauthclient.Resource("https://orders.example/"),
		oauthclient.Scopes("orders:read", "orders:write"), oauthclient.RequestedTokenType(oauthclient.TokenTypeJWT))
	exchangeFor(t, p, caller)
	f := s.form(0)
	want := map[string]string{
		"grant_type":           "urn:ietf:params:oauth:grant-type:token-exchange",
		"subject_token":        caller,
		"subject_token_type":   "urn:ietf:params:oauth:token-type:access_token",
		"requested_token_type": "urn:ietf:params:oauth:token-type:jwt",
		"audience":             "orders-api",
		"resource":             "https://orders.example/",
		"scope":                "orders:read orders:write",
	}
	for k, v := range want {
		if f.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, f.Get(k), v)
		}
	}
}

func TestOnBehalfOfRequest(t *testing.T) {
	s := newTokenServer(t)
	c := newClient(t, s, newClock())
	p, err := oauthclient.TokenExchangeOnBehalfOf("graph", oauthclient.WithoutEnv(), oauthclient.WithClient(c), oauthclient.Scopes("https://graph/.default"))
	if err != nil {
		t.Fatal(err)
	}
	exchangeFor(t, p, "caller-token")
	f := s.form(0)
	if f.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || f.Get("assertion") != "caller-token" ||
		f.Get("requested_token_use") != "on_behalf_of" || f.Get("scope") != "https://graph/.default" || f.Has("subject_token") {
		t.Fatalf("form %v", f)
	}
}

// State table: exchanged token, expiry cut short by the caller's exp →
// kept to its end, never refreshed ahead.
func TestExchangedTokenIsKeptToCallerExpiry(t *testing.T) {
	s := newTokenServer(t)
	clk := newClock()
	p := newExchange(t, newClient(t, s, clk), "orders")
	caller := callerJWT(map[string]any{"exp": clk.Now().Add(5 * time.Minute).Unix()})
	first := exchangeFor(t, p, caller)
	clk.Advance(5*time.Minute - time.Second) // well inside where a refresh window would be
	if got := exchangeFor(t, p, caller); got != first || oauthclient.InFlight(p, caller) || s.count.Load() != 1 {
		t.Fatalf("refreshed ahead: %q after %d requests", got, s.count.Load())
	}
	clk.Advance(time.Second)
	if got := exchangeFor(t, p, caller); got == first || s.count.Load() != 2 {
		t.Fatalf("served past the caller's exp: %q", got)
	}
}

func TestExchangedTokenIsNeverRefreshedAhead(t *testing.T) {
	s := newTokenServer(t)
	clk := newClock()
	p := newExchange(t, newClient(t, s, clk), "orders")
	caller := callerJWT(map[string]any{"exp": clk.Now().Add(3 * time.Hour).Unix()})
	first := exchangeFor(t, p, caller)
	clk.Advance(time.Hour - time.Second)
	if got := exchangeFor(t, p, caller); got != first || oauthclient.InFlight(p, caller) || s.count.Load() != 1 {
		t.Fatal("refreshed ahead of the issued token's expiry")
	}
	clk.Advance(time.Second)
	if exchangeFor(t, p, caller) == first {
		t.Fatal("served past the issued token's expiry")
	}
}

// State table: exchange completes, caller token has no expiry → not cached.
func TestCallerWithoutExpiryIsNotCached(t *testing.T) {
	for name, caller := range map[string]string{
		"opaque":       "opaque-caller-token",
		"JWT, no exp":  callerJWT(map[string]any{"sub": "alice"}),
		"JWT, expired": callerJWT(map[string]any{"exp": time.Now().Add(-time.Minute).Unix()}),
	} {
		t.Run(name, func(t *testing.T) {
			s := newTokenServer(t)
			p := newExchange(t, newClient(t, s, newClock()), "orders")
			a, b := exchangeFor(t, p, caller), exchangeFor(t, p, caller)
			if a == b || s.count.Load() != 2 || oauthclient.ExchangeCacheLen(p) != 0 {
				t.Fatalf("cached: %q %q, %d requests", a, b, s.count.Load())
			}
		})
	}
}

func TestExchangeCacheIsPerCallerAndBounded(t *testing.T) {
	s := newTokenServer(t)
	clk := newClock()
	p := newExchange(t, newClient(t, s, clk), "orders", oauthclient.ExchangeCacheSize(2))
	exp := clk.Now().Add(time.Hour).Unix()
	alice := callerJWT(map[string]any{"sub": "alice", "exp": exp})
	bob := callerJWT(map[string]any{"sub": "bob", "exp": exp})
	carol := callerJWT(map[string]any{"sub": "carol", "exp": exp})
	a1 := exchangeFor(t, p, alice)
	if exchangeFor(t, p, bob) == a1 {
		t.Fatal("bob got alice's token")
	}
	if exchangeFor(t, p, alice) != a1 || s.count.Load() != 2 {
		t.Fatal("alice's token was not cached")
	}
	exchangeFor(t, p, carol) // evicts bob, the least recently used
	if n := oauthclient.ExchangeCacheLen(p); n != 2 {
		t.Fatalf("cache holds %d entries, want 2", n)
	}
	if exchangeFor(t, p, alice) != a1 {
		t.Fatal("alice was evicted instead of bob")
	}
	exchangeFor(t, p, bob)
	if s.count.Load() != 4 {
		t.Fatalf("token requests %d, want bob exchanged again", s.count.Load())
	}
}

func TestConcurrentExchangesForOneCallerShareOneFetch(t *testing.T) {
	s := newTokenServer(t)
	p := newExchange(t, newClient(t, s, newClock()), "orders")
	caller := callerJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix()})
	release := s.hold()
	var wg sync.WaitGroup
	got := make([]string, 20)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = exchangeFor(t, p, caller) }()
	}
	eventually(t, "the exchange reaches the server", func() bool { return s.count.Load() == 1 })
	release()
	wg.Wait()
	for _, g := range got {
		if g != got[0] {
			t.Fatalf("tokens differ: %v", got)
		}
	}
	if s.count.Load() != 1 {
		t.Fatalf("token requests %d", s.count.Load())
	}
}

func TestRefusedExchangeIsRememberedForThatCallerOnly(t *testing.T) {
	s := newTokenServer(t)
	s.then(answer{status: 400, body: `{"error":"invalid_grant"}`})
	p := newExchange(t, newClient(t, s, newClock()), "orders")
	exp := time.Now().Add(time.Hour).Unix()
	alice := callerJWT(map[string]any{"sub": "alice", "exp": exp})
	bob := callerJWT(map[string]any{"sub": "bob", "exp": exp})
	var tr *oauthclient.TokenRefusedError
	if _, err := p.TokenFor(context.Background(), alice); !errors.As(err, &tr) || tr.Code != "invalid_grant" {
		t.Fatalf("err = %v", err)
	}
	if _, err := p.TokenFor(context.Background(), alice); !errors.As(err, &tr) || s.count.Load() != 1 {
		t.Fatal("alice's refused exchange was asked again")
	}
	exchangeFor(t, p, bob)
}

func TestTransportForCarriesTheExchangedToken(t *testing.T) {
	s := newTokenServer(t)
	api := newAPI(t, func(tok string) bool { return tok == "tok-1" })
	p := newExchange(t, newClient(t, s, newClock()), "orders")
	caller := callerJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix()})
	resp := do(t, p.ClientFor(caller), http.MethodGet, api.URL, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := api.calls(); fmt.Sprint(got) != "[Bearer tok-1 Bearer tok-2]" {
		t.Fatalf("API saw %v: want the refused exchange dropped and repeated", got)
	}
	if s.form(1).Get("subject_token") != caller {
		t.Fatal("the repeat did not exchange the same caller token")
	}
}
