package oidcprovider

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestControls runs the admin-route checks one after another on one provider: they share
// its counters.
func TestControls(t *testing.T) {
	t.Parallel()
	p := Start(t, Options{})
	for _, c := range []struct {
		name string
		run  func(*testing.T, *Provider)
	}{
		{"discovery", testDiscovery},
		{"counters and log", testCountersAndLog},
		{"fail token requests", testFailTokenRequests},
		{"delay token requests", testDelayTokenRequests},
	} {
		p.ResetCounters(t)
		t.Run(c.name, func(t *testing.T) { c.run(t, p) })
	}
}

func testFailTokenRequests(t *testing.T, p *Provider) {
	cases := []struct {
		name             string
		n, status        int
		retryAfter, code string
	}{
		{"429 with Retry-After seconds and an error", 2, 429, "3", "slow_down"},
		{"503 with an HTTP-date and no body", 1, 503, "Wed, 21 Oct 2015 07:28:00 GMT", ""},
		{"500 temporarily_unavailable, no Retry-After", 1, 500, "", "temporarily_unavailable"},
		{"400 invalid_grant", 1, 400, "", "invalid_grant"},
	}
	form := url.Values{"grant_type": {GrantClientCredentials}, "scope": {"read"}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p.ResetCounters(t)
			p.FailTokenRequests(t, tc.n, tc.status, tc.retryAfter, tc.code)
			for i := range tc.n {
				res := p.PostToken(t, form, DefaultClientID, DefaultClientSecret)
				if res.Status != tc.status || res.Error != tc.code || res.AccessToken != "" {
					t.Fatalf("request %d: %d %q", i, res.Status, res.Body)
				}
				if got := res.Header.Get("Retry-After"); got != tc.retryAfter {
					t.Errorf("Retry-After %q, want %q", got, tc.retryAfter)
				}
				if tc.code == "" && len(res.Body) != 0 {
					t.Errorf("body %q, want none", res.Body)
				}
				if tc.code != "" && !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
					t.Errorf("Content-Type %q", res.Header.Get("Content-Type"))
				}
				if res.Header.Get("Cache-Control") != "no-store" {
					t.Errorf("Cache-Control %q", res.Header.Get("Cache-Control"))
				}
			}
			if res := p.PostToken(t, form, DefaultClientID, DefaultClientSecret); res.Status != http.StatusOK || res.Header.Get("Retry-After") != "" {
				t.Fatalf("after %d injected failures: %d %s", tc.n, res.Status, res.Body)
			}
			if got := p.TokenRequests(); got != tc.n+1 {
				t.Errorf("TokenRequests %d, want %d", got, tc.n+1)
			}
			log := p.TokenRequestLog(t)
			if len(log) != tc.n+1 {
				t.Fatalf("TokenRequestLog has %d entries, want %d", len(log), tc.n+1)
			}
			for i, e := range log {
				injected := i < tc.n
				if e.Injected != injected || e.Form["scope"] != "read" || e.Authorization != "Basic" || e.BasicClientID != DefaultClientID {
					t.Errorf("log[%d] = %+v", i, e)
				}
				if !injected && (e.Status != 200 || e.Error != "") {
					t.Errorf("log[%d] = %+v", i, e)
				}
			}
		})
	}
	t.Run("n=0 cancels", func(t *testing.T) {
		p.FailTokenRequests(t, 5, 503, "", "")
		p.FailTokenRequests(t, 0, 503, "", "")
		if res := p.PostToken(t, form, DefaultClientID, DefaultClientSecret); res.Status != http.StatusOK {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
	})
}

func testCountersAndLog(t *testing.T, p *Provider) {
	if p.TokenRequests() != 0 || p.JWKSRequests() != 0 || p.DiscoveryRequests() != 0 {
		t.Fatalf("counters after reset: %d %d %d", p.TokenRequests(), p.JWKSRequests(), p.DiscoveryRequests())
	}
	fetchJWKS(t, p)
	fetchJWKS(t, p)
	p.PostToken(t, url.Values{"grant_type": {GrantClientCredentials}, "client_id": {DefaultClientID}, "client_secret": {DefaultClientSecret}, "audience": {"https://aud.test"}}, "", "")
	if p.JWKSRequests() != 2 || p.TokenRequests() != 1 {
		t.Errorf("JWKSRequests %d TokenRequests %d, want 2 and 1", p.JWKSRequests(), p.TokenRequests())
	}
	log := p.TokenRequestLog(t)
	if len(log) != 1 || log[0].Form["client_secret"] != "[redacted]" || log[0].Authorization != "" ||
		log[0].Form["audience"] != "https://aud.test" || log[0].Status != 200 {
		t.Errorf("log %+v", log)
	}
	p.ResetCounters(t)
	if p.JWKSRequests() != 0 || p.TokenRequests() != 0 || len(p.TokenRequestLog(t)) != 0 {
		t.Errorf("ResetCounters left %d %d", p.JWKSRequests(), p.TokenRequests())
	}
}

func testDelayTokenRequests(t *testing.T, p *Provider) {
	p.DelayTokenRequests(t, time.Minute)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.TokenEndpoint, strings.NewReader("grant_type=client_credentials"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(DefaultClientID, DefaultClientSecret)
	if resp, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		if err == nil {
			resp.Body.Close()
		}
		t.Fatalf("a delayed request answered before the client gave up: %v", err)
	}
	p.DelayTokenRequests(t, 0)
	if p.Token(t, "read") == "" {
		t.Fatal("no token after the delay was lifted")
	}
}
