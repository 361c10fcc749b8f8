package oidcprovider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// TokenRequest is what the server saw of one token-endpoint request.
type TokenRequest struct {
	// Form is the parsed request body; client_secret is replaced by "[redacted]".
	Form map[string]any `json:"form"`
	// Authorization is the scheme of the Authorization header ("Basic", "DPoP", ...) or "".
	Authorization string `json:"authorization"`
	// BasicClientID is the client ID of HTTP Basic authentication, or "".
	BasicClientID string `json:"basic_client_id"`
	// DPoP reports whether a DPoP header was sent.
	DPoP bool `json:"dpop"`
	// MTLS reports whether the request came to the mutual-TLS listener (Options.MTLS), and
	// Certificate is the x5t#S256 of the client certificate it presented, or "".
	MTLS        bool   `json:"mtls"`
	Certificate string `json:"certificate"`
	// Status is the answer's status; Error its OAuth error code, or "".
	Status int    `json:"status"`
	Error  string `json:"error"`
	// Injected reports that FailTokenRequests answered instead of oidc-provider.
	Injected bool `json:"injected"`
}

type stats struct {
	Counts struct {
		Token     int `json:"token"`
		JWKS      int `json:"jwks"`
		Discovery int `json:"discovery"`
		// Introspection counts requests to the introspection endpoint.
		Introspection int `json:"introspection"`
	} `json:"counts"`
	TokenLog []TokenRequest `json:"tokenLog"`
	KID      string         `json:"kid"`
}

// admin calls a test-only route of server.mjs.
func (p *Provider) admin(path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, p.Issuer+"/__admin/"+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("X-Admin-Token", p.adminToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return fmt.Errorf("oidcprovider admin %s: %w", path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("oidcprovider admin %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("oidcprovider admin %s: %s: %s", path, resp.Status, raw)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

func (p *Provider) stats() (stats, error) {
	var s stats
	err := p.admin("stats", struct{}{}, &s)
	return s, err
}

// count reads one counter of the stats; a server that does not answer is a
// test error, and -1.
func (p *Provider) count(of func(stats) int) int {
	s, err := p.stats()
	if err != nil {
		p.tb.Errorf("%v", err)
		return -1
	}
	return of(s)
}

// RotateKeys makes the provider sign with a brand-new key (new kid) from now on, keeping the
// old public keys in its JWKS only if keepOld is true. Fresh ES256 and RS256 keys are made
// either way. Tokens signed by a dropped key no longer pass token exchange.
func (p *Provider) RotateKeys(t testing.TB, keepOld bool) {
	t.Helper()
	if err := p.admin("rotate", map[string]bool{"keepOld": keepOld}, nil); err != nil {
		t.Fatal(err)
	}
}

// KeyID is the kid of the key that signs access tokens now.
func (p *Provider) KeyID(t testing.TB) string {
	t.Helper()
	s, err := p.stats()
	if err != nil {
		t.Fatal(err)
	}
	return s.KID
}

// FailTokenRequests makes the next n requests to the token endpoint answer status with the
// given Retry-After header value ("" for none) and an OAuth error JSON body
// {"error": errorCode, "error_description": ...} ("" for an empty body). They still count in
// TokenRequests and TokenRequestLog. n = 0 stops a pending injection.
func (p *Provider) FailTokenRequests(t testing.TB, n, status int, retryAfter, errorCode string) {
	t.Helper()
	if status < 100 || status > 599 {
		t.Fatalf("oidcprovider: FailTokenRequests status %d is not an HTTP status", status)
	}
	in := map[string]any{"n": n, "status": status, "retryAfter": retryAfter, "error": errorCode}
	if err := p.admin("fail", in, nil); err != nil {
		t.Fatal(err)
	}
}

// DelayTokenRequests holds every later token-endpoint request for d before answering (0 stops
// it), so tests can have many callers waiting on one fetch or run into a client timeout.
func (p *Provider) DelayTokenRequests(t testing.TB, d time.Duration) {
	t.Helper()
	if err := p.admin("delay", map[string]int64{"ms": d.Milliseconds()}, nil); err != nil {
		t.Fatal(err)
	}
}

// TokenRequests counts the requests to the token endpoint since Start or ResetCounters
// (failed ones included). It reports a test error and returns -1 if the server does not answer.
func (p *Provider) TokenRequests() int { return p.count(func(s stats) int { return s.Counts.Token }) }

// JWKSRequests counts the requests to the JWKS endpoint since Start or ResetCounters. It
// reports a test error and returns -1 if the server does not answer.
func (p *Provider) JWKSRequests() int { return p.count(func(s stats) int { return s.Counts.JWKS }) }

// IntrospectionRequests counts the requests to the introspection endpoint since Start or
// ResetCounters. It reports a test error and returns -1 if the server does not answer.
func (p *Provider) IntrospectionRequests() int {
	s, err := p.stats()
	if err != nil {
		p.tb.Errorf("%v", err)
		return -1
	}
	return s.Counts.Introspection
}

// DiscoveryRequests counts the requests for the discovery document since Start (whose own
// request is not counted) or ResetCounters. It reports a test error and returns -1 if the
// server does not answer.
func (p *Provider) DiscoveryRequests() int {
	return p.count(func(s stats) int { return s.Counts.Discovery })
}

// TokenRequestLog returns the token-endpoint requests since Start or ResetCounters, oldest
// first (the first 1000 only).
func (p *Provider) TokenRequestLog(t testing.TB) []TokenRequest {
	t.Helper()
	s, err := p.stats()
	if err != nil {
		t.Fatal(err)
	}
	return s.TokenLog
}

// ResetCounters zeroes the request counters and empties TokenRequestLog.
func (p *Provider) ResetCounters(t testing.TB) {
	t.Helper()
	if err := p.admin("reset", struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
}
