// Benchmarks of the outbound token client against golang.org/x/oauth2 in
// the same run: a cached Token() (svc's Pattern.Token against
// oauth2.ReuseTokenSource over clientcredentials) and a round trip through
// the token-attaching transport (svc's Pattern.Transport against
// oauth2.Transport), both over a stub base transport that answers at once,
// so only the token client's own cost is timed, and over loopback HTTP.
// Both contenders fetch their token from the same in-process token server
// before timing starts, and the stub checks the Authorization header they
// send.
//
//	cd bench && go test -run '^$' -bench . -benchmem -count 5 ./oauthclient
package oauthclient_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/svckit/svc/modules/oauthclient"
)

// tokenServer issues one long-lived token per request.
func tokenServer(b *testing.B) *httptest.Server {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJzdmMifQ.token-%d","token_type":"Bearer","expires_in":86400}`, n.Add(1))
	}))
	b.Cleanup(srv.Close)
	return srv
}

func svcPattern(b *testing.B, srv *httptest.Server) *oauthclient.Pattern {
	c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(srv.URL+"/token"),
		oauthclient.ClientID("bench"), oauthclient.ClientSecret("bench-secret"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(context.Background()) })
	p, err := oauthclient.ClientCredentials("api", oauthclient.WithoutEnv(), oauthclient.WithClient(c))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.Token(context.Background()); err != nil {
		b.Fatal(err)
	}
	return p
}

func xSource(b *testing.B, srv *httptest.Server) oauth2.TokenSource {
	cfg := clientcredentials.Config{ClientID: "bench", ClientSecret: "bench-secret", TokenURL: srv.URL + "/token"}
	ts := oauth2.ReuseTokenSource(nil, cfg.TokenSource(context.Background()))
	if _, err := ts.Token(); err != nil {
		b.Fatal(err)
	}
	return ts
}

func BenchmarkCachedToken(b *testing.B) {
	srv := tokenServer(b)
	ctx := context.Background()
	b.Run("svc", func(b *testing.B) {
		p := svcPattern(b, srv)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.Token(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("x-oauth2", func(b *testing.B) {
		ts := xSource(b, srv)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ts.Token(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkCachedTokenParallel(b *testing.B) {
	srv := tokenServer(b)
	ctx := context.Background()
	b.Run("svc", func(b *testing.B) {
		p := svcPattern(b, srv)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := p.Token(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("x-oauth2", func(b *testing.B) {
		ts := xSource(b, srv)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := ts.Token(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// stub answers every request at once after checking it carries a token.
type stub struct{}

func (stub) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(r.Header.Get("Authorization")) < len("Bearer eyJ") {
		return nil, fmt.Errorf("no token sent")
	}
	return &http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
}

func benchRoundTrip(b *testing.B, rt http.RoundTripper, url string) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "bench")
	b.ReportAllocs()
	for b.Loop() {
		resp, err := rt.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

func BenchmarkTransportRoundTrip(b *testing.B) {
	srv := tokenServer(b)
	b.Run("stub/svc", func(b *testing.B) {
		benchRoundTrip(b, svcPattern(b, srv).Transport(stub{}), "http://api.invalid/orders")
	})
	b.Run("stub/x-oauth2", func(b *testing.B) {
		benchRoundTrip(b, &oauth2.Transport{Source: xSource(b, srv), Base: stub{}}, "http://api.invalid/orders")
	})
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			w.WriteHeader(401)
		}
	}))
	b.Cleanup(api.Close)
	b.Run("loopback/svc", func(b *testing.B) {
		benchRoundTrip(b, svcPattern(b, srv).Transport(http.DefaultTransport), api.URL)
	})
	b.Run("loopback/x-oauth2", func(b *testing.B) {
		benchRoundTrip(b, &oauth2.Transport{Source: xSource(b, srv), Base: http.DefaultTransport}, api.URL)
	})
}

// BenchmarkExchangeCacheHit has no x/oauth2 counterpart (it has no token
// exchange): a cached RFC 8693 token for one caller, looked up by the
// SHA-256 of an 800-byte caller token.
func BenchmarkExchangeCacheHit(b *testing.B) {
	srv := tokenServer(b)
	c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(srv.URL+"/token"),
		oauthclient.ClientID("bench"), oauthclient.ClientSecret("bench-secret"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(context.Background()) })
	p, err := oauthclient.TokenExchange("orders", oauthclient.WithoutEnv(), oauthclient.WithClient(c))
	if err != nil {
		b.Fatal(err)
	}
	payload := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"sub":"alice","exp":%d,"pad":%q}`,
		time.Now().Add(time.Hour).Unix(), strings.Repeat("x", 500))))
	caller := "eyJhbGciOiJFUzI1NiJ9." + payload + ".c2lnbmF0dXJl"
	ctx := context.Background()
	if _, err := p.TokenFor(ctx, caller); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.TokenFor(ctx, caller); err != nil {
			b.Fatal(err)
		}
	}
}
