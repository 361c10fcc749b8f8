package authn_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/svckit/svc/bench/internal/pair"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// Benchmarks of opaque tokens (issue 20): a cached introspected token
// against a cached JWT through the gate, a cold introspection against one
// raw HTTP round trip to the same endpoint, and 1,000 callers of one cold
// token.
//
//	cd bench && go test -run '^$' -bench 'Introspect' -benchmem -count 5 ./authn

const opaque = "2YotnFZFEjr1zCsicMWpAA-opaque-access-token"

// introspection is an RFC 7662 endpoint on loopback answering every token
// active, with the claims of the JWT fixture; it counts its requests.
type introspection struct {
	*httptest.Server
	requests atomic.Int64
	client   *oauthclient.Client
}

func newIntrospection(b *testing.B) *introspection {
	b.Helper()
	answer, _ := json.Marshal(map[string]any{
		"active": true, "iss": issuer, "sub": "user-1234567890", "aud": audience,
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix(), "client_id": "web-app",
		"scope": "openid profile orders:read orders:write", "token_type": "Bearer",
	})
	s := &introspection{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	b.Cleanup(s.Close)
	c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(s.URL+"/token"),
		oauthclient.ClientID("orders-api"), oauthclient.ClientSecret(secret.String("orders-secret")),
		oauthclient.Secret(oauthclient.Basic))
	if err != nil {
		b.Fatal(err)
	}
	s.client = c
	return s
}

// gateOver is a chi app with one authenticated route behind a gate over v.
func gateOver(b *testing.B, v bearer.Verifier) http.Handler {
	g, err := authn.New(v)
	if err != nil {
		b.Fatal(err)
	}
	r := chi.NewRouter()
	r.Get("/orders", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h, err := g.Handler(r)
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// BenchmarkIntrospectCachedPaired: one verifier taking both kinds, the
// same gate, a cached opaque token alternated with a cached JWT. Goal
// (issue 20): opaque ≤ 1.2× JWT.
func BenchmarkIntrospectCachedPaired(b *testing.B) {
	f := newFixture(b)
	s := newIntrospection(b)
	v := f.svc(b, bearer.Introspect(s.URL+"/introspect", s.client))
	h := gateOver(b, v)
	serve := func(token string) func() {
		return func() {
			req := httptest.NewRequest(http.MethodGet, "/orders", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusNoContent {
				b.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
		}
	}
	serve(opaque)()
	b.ReportAllocs()
	copaque, cjwt := pair.Paired(b, 64, serve(opaque), serve(f.token))
	pair.Report(b, "opaque", "jwt", copaque, cjwt)
	if n := s.requests.Load(); n != 1 {
		b.Fatalf("%d introspections, want 1", n)
	}
}

// BenchmarkIntrospectColdPaired: a cold introspection (the cache off, so
// every Verify asks) alternated with the raw round trip it is built on:
// the same form POST, authenticated the same way, to the same endpoint,
// its body read and decoded. Goal (issue 20): ≤ 1.1× raw, on wall time
// (the round trip is most of it).
func BenchmarkIntrospectColdPaired(b *testing.B) {
	f := newFixture(b)
	s := newIntrospection(b)
	v := f.svc(b, bearer.Introspect(s.URL+"/introspect", s.client), bearer.CacheBytes(0))
	ctx := context.Background()
	hc := &http.Client{Transport: http.DefaultTransport}
	svc := func() {
		if _, err := v.Verify(ctx, opaque); err != nil {
			b.Fatal(err)
		}
	}
	raw := func() {
		form := url.Values{"token": {opaque}, "token_type_hint": {"access_token"}}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/introspect", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		req.SetBasicAuth("orders-api", "orders-secret")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var answer map[string]any
		err = json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		if err != nil || answer["active"] != true {
			b.Fatal(err)
		}
	}
	svc()
	raw()
	b.ReportAllocs()
	csvc, craw := pair.Paired(b, 8, svc, raw)
	pair.Report(b, "svc", "raw", csvc, craw)
}

// BenchmarkIntrospectThousandCallers: 1,000 goroutines verify one cold
// opaque token at once, a new token each iteration. Goal (issue 20): one
// introspection request per token (reported as requests/token).
func BenchmarkIntrospectThousandCallers(b *testing.B) {
	f := newFixture(b)
	s := newIntrospection(b)
	v := f.svc(b, bearer.Introspect(s.URL+"/introspect", s.client))
	ctx := context.Background()
	s.requests.Store(0)
	tokens := 0
	for b.Loop() {
		tokens++
		tok := fmt.Sprintf("%s-%d", opaque, tokens)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range 1000 {
			wg.Go(func() {
				<-start
				if _, err := v.Verify(ctx, tok); err != nil {
					b.Error(err)
				}
			})
		}
		close(start)
		wg.Wait()
	}
	b.ReportMetric(float64(s.requests.Load())/float64(tokens), "requests/token")
	if n := s.requests.Load(); n != int64(tokens) {
		b.Fatalf("%d introspections for %d tokens", n, tokens)
	}
}
