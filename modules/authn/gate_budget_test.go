package authn_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
	"github.com/svckit/svc/modules/telemetry"
)

// Regression: issue 25 item 2.
// The same cold start through the gate, over real connections: 64 first
// requests at once, each with its own valid token, are all answered 200.
func TestGateColdStartBurstIsServed(t *testing.T) {
	prev := runtime.GOMAXPROCS(2) // the budget's default is what a small host gets
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	iss := authntest.NewIssuer(t)
	g, err := authn.New(iss.Verifier())
	if err != nil {
		t.Fatal(err)
	}
	h, err := g.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	toks := make([]string, 64)
	for i := range toks {
		toks[i] = iss.Token(authntest.Subject(fmt.Sprintf("caller-%d", i)))
	}
	statuses := make(chan string, len(toks))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, tok := range toks {
		wg.Go(func() {
			req, _ := http.NewRequest("GET", srv.URL+"/", nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			<-start
			resp, err := srv.Client().Do(req)
			if err != nil {
				statuses <- err.Error()
				return
			}
			resp.Body.Close()
			statuses <- fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("Retry-After"))
		})
	}
	close(start)
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != "200 " {
			t.Fatalf("a valid caller at a cold start was answered %q", s)
		}
	}
}

// Regression: issue 25 item 2.
// The gate queues a verification under the caller's address, with or
// without the telemetry wrapper (whose State carries the key instead of a
// context node).
func TestGateHandsTheClientAddressToTheBudget(t *testing.T) {
	for _, behind := range []bool{false, true} {
		t.Run(fmt.Sprintf("behind the wrapper %t", behind), func(t *testing.T) {
			keys := make(chan string, 1)
			g, err := authn.New(verifierFunc(func(ctx context.Context, _ string) (bearer.Principal, error) {
				c, _ := ctx.Value(bearer.CallerKey{}).(bearer.Caller)
				if c == nil {
					keys <- "no caller"
				} else {
					keys <- c.FairnessKey()
				}
				return bearer.Principal{Subject: "a", Authenticated: true}, nil
			}))
			if err != nil {
				t.Fatal(err)
			}
			h, err := g.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
			if err != nil {
				t.Fatal(err)
			}
			if behind {
				tel, err := telemetry.New()
				if err != nil {
					t.Fatal(err)
				}
				h = tel.Handler(h)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			req, _ := http.NewRequest("GET", srv.URL+"/", nil)
			req.Header.Set("Authorization", "Bearer abc")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if got := <-keys; got != "127.0.0.1" {
				t.Fatalf("fairness key %q, want the client address 127.0.0.1", got)
			}
		})
	}
}

type verifierFunc func(context.Context, string) (bearer.Principal, error)

func (f verifierFunc) Verify(ctx context.Context, tok string) (bearer.Principal, error) {
	return f(ctx, tok)
}
