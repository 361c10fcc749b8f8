package fxsvc_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/svckit/svc/fxsvc"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/bans"
	"github.com/svckit/svc/modules/authn/flood"
	"github.com/svckit/svc/modules/store"
)

// graphBans is a store.Bans the app's graph provides, as fxredis.Redis does.
type graphBans struct {
	mu    sync.Mutex
	fails []string
}

func (s *graphBans) Banned(string, string, time.Time) (time.Time, bool) { return time.Time{}, false }
func (s *graphBans) Active(string, time.Time) int                       { return 0 }
func (s *graphBans) Fail(_ context.Context, addr string, _ time.Time, _ store.BanRule) (store.Ban, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails = append(s.fails, addr)
	return store.Ban{}, false, nil
}

type graphFlood struct{ calls int }

func (s *graphFlood) Allow(context.Context, string, time.Time, store.FloodRule) (time.Duration, bool, error) {
	s.calls++
	return 7 * time.Second, false, nil
}

func TestAuthnKeepsBansAndFloodInTheGraphsStores(t *testing.T) {
	cases := []struct {
		name        string
		bans        *bans.Bans
		wantInGraph bool
	}{
		{"bans without a store use the graph's", bans.New(bans.Threshold(5)), true},
		{"bans with their own store keep it", bans.New(bans.Store(&graphBans{})), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sb, sf := &graphBans{}, &graphFlood{}
			var g *authn.Gate
			app := fx.New(fx.NopLogger,
				fx.Provide(func() store.Bans { return sb }, func() store.Flood { return sf }),
				fxsvc.Authn(tokens{}, authn.Bans(c.bans), authn.Flood(flood.New())), fxsvc.TrustedProxies(),
				fx.Populate(&g))
			if err := app.Err(); err != nil {
				t.Fatal(err)
			}
			h := gateOnMe(t, g)
			srv := httptest.NewServer(h)
			defer srv.Close()
			req, _ := http.NewRequest("GET", srv.URL+"/me", nil)
			req.Header.Set("Authorization", "Bearer forged")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 401 {
				t.Fatalf("forgery: %d", resp.StatusCode)
			}
			if got := len(sb.fails) == 1; got != c.wantInGraph {
				t.Fatalf("failures in the graph's store: %v, want in it: %v", sb.fails, c.wantInGraph)
			}
			req, _ = http.NewRequest("GET", srv.URL+"/nowhere", nil)
			req.Header.Set("Authorization", "Bearer alice-token")
			resp, err = http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" || sf.calls != 1 {
				t.Fatalf("unknown URL: %d %v, flood store asked %d times", resp.StatusCode, resp.Header, sf.calls)
			}
		})
	}
}
