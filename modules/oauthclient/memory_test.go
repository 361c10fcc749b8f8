package oauthclient_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
)

// Regression: issue 14 item 23.
// With 30 s tokens a refresh that failed late in the token's life was
// remembered for the full retry interval, past the token's expiry, and every
// caller failed until it ended although the server might answer. A failure
// remembered while the cached token was alive now stops fetches at most
// until that token expires; then one fetch is made, whose own failure is
// remembered in full. A Retry-After the server asked for is kept in full.
func TestFailureMemoryEndsWithTheCachedToken(t *testing.T) {
	cases := []struct {
		name       string
		refresh    answer   // the answer to the refresh inside the window
		atExpiry   []answer // the answers after the token expired
		wantAsked  bool     // a fetch is made at expiry
		wantToken  bool     // and brings a token
		wantWaitTo time.Duration
	}{
		{"server error: one fetch at expiry brings a token", answer{status: 500}, nil, true, true, 0},
		{"refusal of the token: one fetch at expiry", answer{status: 400, body: `{"error":"invalid_scope"}`}, nil, true, true, 0},
		{"invalid_client: one fetch at expiry", answer{status: 401, body: `{"error":"invalid_client"}`}, nil, true, true, 0},
		{"the fetch at expiry fails too: remembered in full", answer{status: 500}, []answer{{status: 500}}, true, false, 10 * time.Second},
		{"Retry-After is kept in full", answer{status: 503, header: map[string]string{"Retry-After": "60"}}, nil, false, false, 54 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTokenServer(t)
			s.expires = 30 // refresh window: half the lifetime, 15 s
			clk := newClock()
			p := newCC(t, newClient(t, s, clk), "api")
			if got := mustToken(t, p); got != "tok-1" {
				t.Fatalf("first token %q", got)
			}

			// Late in the window: the refresh fails while tok-1 is served.
			s.then(tc.refresh)
			s.then(tc.atExpiry...)
			clk.Advance(24 * time.Second)
			if got := mustToken(t, p); got != "tok-1" {
				t.Fatalf("during the refresh got %q, want the cached tok-1", got)
			}
			eventually(t, "the refresh ends", func() bool { return s.count.Load() == 2 && !oauthclient.InFlight(p, "") })
			clk.Advance(5 * time.Second) // 1 s before expiry: still served, not asked
			if got := mustToken(t, p); got != "tok-1" || s.count.Load() != 2 {
				t.Fatalf("before expiry got %q after %d requests", got, s.count.Load())
			}

			clk.Advance(time.Second) // tok-1 has expired; the failure is 6 s old
			tok, err := p.Token(context.Background())
			asked := s.count.Load() == 3
			if asked != tc.wantAsked {
				t.Fatalf("fetch at expiry made = %v, want %v (err %v)", asked, tc.wantAsked, err)
			}
			if tc.wantToken {
				if err != nil || tok.Value != "tok-2" {
					t.Fatalf("at expiry: %v %v, want tok-2", tok, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("at expiry got %v, want the remembered failure", tok)
			}
			var ue *oauthclient.UnavailableError
			if !errors.As(err, &ue) {
				t.Fatalf("at expiry err = %v, want UnavailableError", err)
			}
			n := s.count.Load()
			clk.Advance(tc.wantWaitTo - time.Millisecond)
			if _, err := p.Token(context.Background()); err == nil || s.count.Load() != n {
				t.Fatalf("asked again %v before the remembered failure ended", tc.wantWaitTo)
			}
			clk.Advance(time.Millisecond)
			if got := mustToken(t, p); got != "tok-2" {
				t.Fatalf("after the remembered failure got %q", got)
			}
		})
	}
}
