package oauthclient_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
)

// State table: outbound token, cached, outside refresh window, request →
// served from cache.
func TestCachedTokenOutsideWindowIsServedFromCache(t *testing.T) {
	s := newTokenServer(t)
	clk := newClock()
	p := newCC(t, newClient(t, s, clk), "api")
	first := mustToken(t, p)
	for i := 0; i < 100; i++ {
		clk.Advance(time.Second)
		if got := mustToken(t, p); got != first {
			t.Fatalf("request %d got %q, want the cached %q", i, got, first)
		}
	}
	if n := s.count.Load(); n != 1 {
		t.Fatalf("token requests = %d, want 1", n)
	}
}

// State table: cached, inside refresh window, request → one fetch started
// by the client's own goroutine, cached token served to every request
// meanwhile.
func TestInsideWindowOneBackgroundFetchWhileCachedTokenIsServed(t *testing.T) {
	s := newTokenServer(t)
	clk := newClock()
	p := newCC(t, newClient(t, s, clk), "api")
	first := mustToken(t, p)

	release := s.hold()
	clk.Advance(time.Hour - time.Minute + time.Second) // inside the 1m window
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := mustToken(t, p); got != first {
				t.Errorf("got %q during the refresh, want the cached %q", got, first)
			}
		}()
	}
	wg.Wait() // every request returned while the fetch is still held
	eventually(t, "the refresh reaches the server", func() bool { return s.count.Load() == 2 })
	if !oauthclient.InFlight(p, "") {
		t.Fatal("the refresh is not in flight")
	}
	release()
	eventually(t, "the refresh ends", func() bool { return !oauthclient.InFlight(p, "") })
	if got := mustToken(t, p); got == first {
		t.Fatal("the refreshed token is not served")
	}
	if n := s.count.Load(); n != 2 {
		t.Fatalf("token requests = %d, want 2", n)
	}
}

// State table: cancelling the starting request does not cancel the fetch.
func TestCancellingTheStartingRequestDoesNotCancelTheFetch(t *testing.T) {
	s := newTokenServer(t)
	p := newCC(t, newClient(t, s, newClock()), "api")
	release := s.hold()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := p.Token(ctx)
		done <- err
	}()
	eventually(t, "the fetch reaches the server", func() bool { return s.count.Load() == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled request: %v", err)
	}
	release()
	eventually(t, "the fetch ends", func() bool { return !oauthclient.InFlight(p, "") })
	if got := mustToken(t, p); got != "tok-1" {
		t.Fatalf("got %q, want the token the cancelled request's fetch brought", got)
	}
	if n := s.count.Load(); n != 1 {
		t.Fatalf("token requests = %d, want 1", n)
	}
}

// State table: closing the client cancels the fetch.
func TestClosingTheClientCancelsTheFetch(t *testing.T) {
	s := newTokenServer(t)
	c := newClient(t, s, newClock())
	p := newCC(t, c, "api")
	s.hold()
	done := make(chan error, 1)
	go func() {
		_, err := p.Token(context.Background())
		done <- err
	}()
	eventually(t, "the fetch reaches the server", func() bool { return s.count.Load() == 1 })
	if err := c.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-done; !errors.Is(err, oauthclient.ErrClosed) {
		t.Fatalf("waiting request: %v, want ErrClosed", err)
	}
	if oauthclient.InFlight(p, "") {
		t.Fatal("a fetch is still in flight after Close")
	}
}

// Refresh window: refresh_in when sent, else refresh_before capped at half
// the lifetime, plus jitter up to half the window earlier.
func TestRefreshWindow(t *testing.T) {
	full := func(max time.Duration) time.Duration { return max }
	cases := []struct {
		name      string
		expires   int
		extra     string
		opts      []oauthclient.Option
		refreshAt time.Duration // after the first fetch
	}{
		{"refresh_before", 3600, "", []oauthclient.Option{oauthclient.RefreshBefore(5 * time.Minute)}, 55 * time.Minute},
		{"refresh_before capped at half the lifetime", 60, "", nil, 30 * time.Second},
		{"refresh_in from the server", 3600, `,"refresh_in":1800`, nil, 30 * time.Minute},
		{"refresh_in as a string", 3600, `,"refresh_in":"2400"`, nil, 40 * time.Minute},
		{"refresh_in not below the lifetime is ignored", 3600, `,"refresh_in":7200`, nil, 59 * time.Minute},
		{"jitter moves it up to half the window earlier", 3600, "", []oauthclient.Option{oauthclient.WithJitter(full)}, 3600*time.Second - 90*time.Second},
		{"jitter with refresh_in", 3600, `,"refresh_in":3000`, []oauthclient.Option{oauthclient.WithJitter(full)}, 2700 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTokenServer(t)
			s.expires, s.extra = tc.expires, tc.extra
			clk := newClock()
			p := newCC(t, newClient(t, s, clk, tc.opts...), "api")
			mustToken(t, p)
			clk.Advance(tc.refreshAt - time.Millisecond)
			mustToken(t, p)
			if oauthclient.InFlight(p, "") || s.count.Load() != 1 {
				t.Fatalf("refresh started before %v", tc.refreshAt)
			}
			clk.Advance(time.Millisecond)
			mustToken(t, p)
			eventually(t, "the refresh", func() bool { return s.count.Load() == 2 })
		})
	}
}

func TestLifetimeWithoutExpiresIn(t *testing.T) {
	t.Run("JWT exp is used", func(t *testing.T) {
		s := newTokenServer(t)
		clk := newClock()
		jwt := callerJWT(map[string]any{"exp": clk.Now().Add(10 * time.Minute).Unix()})
		s.then(answer{status: 200, body: `{"access_token":"` + jwt + `","token_type":"bearer"}`})
		p := newCC(t, newClient(t, s, clk), "api")
		tok, err := p.Token(context.Background())
		if err != nil || tok.TokenType != "Bearer" || tok.ExpiresAt.IsZero() {
			t.Fatalf("token %v %v", tok, err)
		}
		clk.Advance(9*time.Minute + time.Second)
		mustToken(t, p)
		eventually(t, "refresh ahead of the JWT's exp", func() bool { return s.count.Load() == 2 })
	})
	t.Run("opaque token is kept", func(t *testing.T) {
		s := newTokenServer(t)
		s.then(answer{status: 200, body: `{"access_token":"opaque","token_type":"Bearer"}`})
		clk := newClock()
		p := newCC(t, newClient(t, s, clk), "api")
		mustToken(t, p)
		clk.Advance(1000 * time.Hour)
		if got := mustToken(t, p); got != "opaque" || s.count.Load() != 1 {
			t.Fatalf("got %q after %d fetches", got, s.count.Load())
		}
	})
}

func TestExpiredTokenIsNotServed(t *testing.T) {
	s := newTokenServer(t)
	clk := newClock()
	p := newCC(t, newClient(t, s, clk), "api")
	mustToken(t, p)
	s.then(answer{status: 500, body: "down"})
	clk.Advance(time.Hour)
	if _, err := p.Token(context.Background()); err == nil {
		t.Fatal("an expired token was served")
	}
}
