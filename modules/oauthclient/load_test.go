package oauthclient_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
)

const crowd = 1000

// runCrowd sends crowd concurrent GETs through hc and returns the statuses
// and errors seen.
func runCrowd(t *testing.T, hc *http.Client, url string) (ok int64, failed int64) {
	var wg sync.WaitGroup
	var nOK, nFail atomic.Int64
	for i := 0; i < crowd; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := hc.Get(url)
			if err != nil {
				nFail.Add(1)
				return
			}
			resp.Body.Close()
			if resp.StatusCode == 200 {
				nOK.Add(1)
			}
		}()
	}
	wg.Wait()
	return nOK.Load(), nFail.Load()
}

// A thousand goroutines calling through the transport across a refresh
// and across an expiry produce exactly one token fetch each time.
//
// Regression: issue 14 item 16. The refresh is held at the server while a
// crowd runs; under load the crowd outlasted the 5 s token timeout of the
// test client, the held refresh timed out on the wall clock and was
// remembered as a failure, and the API saw tok-1 3000 times. Every test
// client now has a timeout far above any hold (testTimeout), and the
// refresh is checked to have brought tok-2 before the next crowd.
func TestLoadOneFetchAcrossRefreshAndExpiry(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	s := newTokenServer(t)
	api := newAPI(t, nil)
	clk := newClock()
	p := newCC(t, newClient(t, s, clk), "api")
	// Bounded: at most 64 loopback connections to the API.
	hc := &http.Client{Transport: p.Transport(&http.Transport{MaxConnsPerHost: 64, MaxIdleConnsPerHost: 64})}
	if ok, _ := runCrowd(t, hc, api.URL); ok != crowd || s.count.Load() != 1 {
		t.Fatalf("cold start: %d ok, %d token requests", ok, s.count.Load())
	}

	// Across a refresh: everyone is served the cached token while one
	// fetch is held at the server.
	release := s.hold()
	clk.Advance(59*time.Minute + time.Second)
	if ok, _ := runCrowd(t, hc, api.URL); ok != crowd {
		t.Fatalf("refresh: %d ok", ok)
	}
	release()
	eventually(t, "the refresh ends", func() bool { return !oauthclient.InFlight(p, "") })
	if got := mustToken(t, p); got != "tok-2" {
		t.Fatalf("after the refresh the cache holds %q, want tok-2 (did the held refresh fail?)", got)
	}
	if ok, _ := runCrowd(t, hc, api.URL); ok != crowd || s.count.Load() != 2 {
		t.Fatalf("after the refresh: %d ok, token requests = %d, want 2", ok, s.count.Load())
	}

	// Across an expiry: everyone waits for the same one fetch.
	clk.Advance(2 * time.Hour)
	if ok, _ := runCrowd(t, hc, api.URL); ok != crowd {
		t.Fatalf("expiry: %d ok", ok)
	}
	if n := s.count.Load(); n != 3 {
		t.Fatalf("token requests after the expiry = %d, want 3", n)
	}
	seen := map[string]int{}
	for _, a := range api.calls() {
		seen[a]++
	}
	if len(seen) != 3 || seen["Bearer tok-1"] != 2*crowd || seen["Bearer tok-2"] != crowd || seen["Bearer tok-3"] != crowd {
		t.Fatalf("tokens seen by the API: %v", seen)
	}
}

// With the token server down, fetches stay at one per retry_interval however
// many requests arrive.
func TestLoadServerDownOneFetchPerRetryInterval(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	api := newAPI(t, nil)
	t.Run("answers 5xx", func(t *testing.T) {
		s := newTokenServer(t)
		s.then(answerN(answer{status: 500}, 100)...)
		clk := newClock()
		p := newCC(t, newClient(t, s, clk), "api")
		hc := &http.Client{Transport: p.Transport(&http.Transport{MaxConnsPerHost: 64})}
		for round := int64(1); round <= 5; round++ {
			if ok, failed := runCrowd(t, hc, api.URL); ok != 0 || failed != crowd {
				t.Fatalf("round %d: %d ok, %d failed", round, ok, failed)
			}
			if n := s.count.Load(); n != round {
				t.Fatalf("round %d: %d token requests, want %d", round, n, round)
			}
			clk.Advance(10 * time.Second)
		}
		if len(api.calls()) != 0 {
			t.Fatal("requests without a token reached the API")
		}
	})
	t.Run("refuses connections", func(t *testing.T) {
		var dials atomic.Int64
		down := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return nil, errors.New("connection refused")
		}}}
		clk := newClock()
		c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint("http://127.0.0.1:9/token"),
			oauthclient.ClientID("id"), oauthclient.ClientSecret("s"), oauthclient.HTTPClient(down), oauthclient.Clock(clk.Now))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		p := newCC(t, c, "api")
		hc := &http.Client{Transport: p.Transport(&http.Transport{MaxConnsPerHost: 64})}
		for round := int64(1); round <= 3; round++ {
			if ok, _ := runCrowd(t, hc, api.URL); ok != 0 {
				t.Fatalf("round %d: %d ok", round, ok)
			}
			// One fetch per interval, which tries twice (a connection that
			// fails before any answer is retried once at once).
			if n := dials.Load(); n != 2*round {
				t.Fatalf("round %d: %d dials, want %d", round, n, 2*round)
			}
			clk.Advance(10 * time.Second)
		}
		_, err = p.Token(context.Background())
		if err == nil || !strings.Contains(err.Error(), "connection") {
			t.Fatalf("err = %v", err)
		}
	})
}

func answerN(a answer, n int) []answer {
	out := make([]answer, n)
	for i := range out {
		out[i] = a
	}
	return out
}
