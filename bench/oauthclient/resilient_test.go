package oauthclient_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svckit/svc/bench/internal/pair"
	"github.com/svckit/svc/modules/oauthclient"
)

// everything is oauthclient.Resilience with every part on: retries with
// their budget, a breaker per host, idempotency keys for POST and PATCH.
var everything = oauthclient.Resilience{IdempotencyKeys: true}

func resilientPattern(b *testing.B, srv *httptest.Server, name string, r *oauthclient.Resilience) *oauthclient.Pattern {
	c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(srv.URL+"/token"),
		oauthclient.ClientID("bench"), oauthclient.ClientSecret("bench-secret"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(context.Background()) })
	opts := []oauthclient.PatternOption{oauthclient.WithoutEnv(), oauthclient.WithClient(c)}
	if r != nil {
		opts = append(opts, *r)
	}
	p, err := oauthclient.ClientCredentials(name, opts...)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.Token(context.Background()); err != nil {
		b.Fatal(err)
	}
	return p
}

// roundTrip sends req through rt and reads the answer, failing on
// anything but a 200.
func roundTrip(b *testing.B, rt http.RoundTripper, req *http.Request) {
	resp, err := rt.RoundTrip(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("status %d", resp.StatusCode)
	}
}

// BenchmarkResilientLoopbackPaired: a GET through a pattern with
// everything of Resilience on, against a bare http.Transport round trip
// (the same request, with an Authorization header of the same size
// already set), alternated in one loop on loopback. Goal: resilient/bare
// ≤ 1.1. Each side has its own http.Transport (keep-alive connections).
// plain is the same pattern without Resilience against bare, to tell the
// token transport's cost from the resilience's.
func BenchmarkResilientLoopbackPaired(b *testing.B) {
	srv := tokenServer(b)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			w.WriteHeader(401)
		}
	}))
	b.Cleanup(api.Close)
	for _, tc := range []struct {
		name string
		r    *oauthclient.Resilience
	}{{"resilient", &everything}, {"plain", nil}} {
		b.Run(tc.name, func(b *testing.B) {
			svcBase, bareBase := &http.Transport{}, &http.Transport{}
			b.Cleanup(svcBase.CloseIdleConnections)
			b.Cleanup(bareBase.CloseIdleConnections)
			rt := resilientPattern(b, srv, "api", tc.r).Transport(svcBase)
			req, _ := http.NewRequest(http.MethodGet, api.URL+"/orders", nil)
			req.Header.Set("Accept", "application/json")
			bareReq := req.Clone(context.Background())
			bareReq.Header.Set("Authorization", "Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJzdmMifQ.token-1")
			roundTrip(b, rt, req)
			roundTrip(b, bareBase, bareReq)
			s, z := pair.Paired(b, 16, func() { roundTrip(b, rt, req) }, func() { roundTrip(b, bareBase, bareReq) })
			pair.Report(b, tc.name, "bare", s, z)
		})
	}
}

// BenchmarkResilientStub: the pattern's transport over a stub base that
// answers at once, without and with Resilience (everything on), so that
// only svc's own cost is timed. Goal: the same allocations per request.
func BenchmarkResilientStub(b *testing.B) {
	srv := tokenServer(b)
	b.Run("plain", func(b *testing.B) {
		benchRoundTrip(b, resilientPattern(b, srv, "plain", nil).Transport(stub{}), "http://api.invalid/orders")
	})
	b.Run("resilient", func(b *testing.B) {
		benchRoundTrip(b, resilientPattern(b, srv, "resilient", &everything).Transport(stub{}), "http://api.invalid/orders")
	})
}

// BenchmarkResilientStubPaired: the two sides of BenchmarkResilientStub
// alternated in one loop; resilient/plain is the cost of the breaker, the
// budget and the retry loop on the happy path.
func BenchmarkResilientStubPaired(b *testing.B) {
	srv := tokenServer(b)
	plain := resilientPattern(b, srv, "plain", nil).Transport(stub{})
	resil := resilientPattern(b, srv, "resilient", &everything).Transport(stub{})
	req, _ := http.NewRequest(http.MethodGet, "http://api.invalid/orders", nil)
	r, z := pair.Paired(b, 64, func() { roundTrip(b, resil, req) }, func() { roundTrip(b, plain, req) })
	pair.Report(b, "resilient", "plain", r, z)
}

// BenchmarkResilientFullOutage: every answer is a 503. With the breaker
// off, the retry budget alone caps what reaches the API: hits/request ≤
// 1 + RetryBudget (+ MinRetries over the whole run), whatever MaxAttempts
// (5 here). With the breaker on, it opens after MinRequests and most
// requests never leave. Waits are a microsecond, so only the counts
// matter.
func BenchmarkResilientFullOutage(b *testing.B) {
	srv := tokenServer(b)
	var hits atomic.Int64
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	b.Cleanup(api.Close)
	for _, tc := range []struct {
		name string
		r    oauthclient.Resilience
	}{
		{"budget-only", oauthclient.Resilience{NoBreaker: true, MaxAttempts: 5, Backoff: time.Microsecond, MaxWait: time.Microsecond}},
		{"budget-and-breaker", oauthclient.Resilience{MaxAttempts: 5, Backoff: time.Microsecond, MaxWait: time.Microsecond}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			base := &http.Transport{}
			b.Cleanup(base.CloseIdleConnections)
			rt := resilientPattern(b, srv, "outage", &tc.r).Transport(base)
			req, _ := http.NewRequest(http.MethodGet, api.URL+"/orders", nil)
			hits.Store(0)
			n := int64(0)
			for b.Loop() {
				n++
				resp, err := rt.RoundTrip(req)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
			perRequest := float64(hits.Load()) / float64(n)
			b.ReportMetric(perRequest, "hits/request")
			// The window is 10 s: a run longer than that gets MinRetries
			// per window, which the bound below leaves room for.
			if limit := 1 + 0.1 + 10*float64(1+int64(b.Elapsed()/(10*time.Second)))/float64(n); perRequest > limit {
				b.Fatalf("%.3f hits per request, over the budget's %.3f", perRequest, limit)
			}
		})
	}
}
