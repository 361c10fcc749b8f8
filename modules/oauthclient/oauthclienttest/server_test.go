package oauthclienttest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/modules/oauthclient/oauthclienttest"
)

func newPattern(t *testing.T, srv *oauthclienttest.Server, opts ...oauthclient.PatternOption) *oauthclient.Pattern {
	t.Helper()
	c, err := oauthclient.New(srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	p, err := oauthclient.ClientCredentials("billing", append([]oauthclient.PatternOption{oauthclient.WithClient(c)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestServerIssuesAndCountsClientCredentials(t *testing.T) {
	srv := oauthclienttest.NewServer(t)
	p := newPattern(t, srv, oauthclient.Scopes("invoices:read"))
	for range 3 {
		tok, err := p.Token(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if tok.Value != "tok-1" {
			t.Fatalf("token = %q, want the cached tok-1", tok.Value)
		}
	}
	if srv.Fetches() != 1 {
		t.Fatalf("Fetches = %d, want 1 (the pattern caches)", srv.Fetches())
	}
	rq := srv.Requests()[0]
	if rq.ClientID != oauthclienttest.ClientID || rq.Form.Get("grant_type") != "client_credentials" || rq.Form.Get("scope") != "invoices:read" {
		t.Fatalf("request = %+v", rq)
	}
}

func TestServerFaultsReachTheClientAsTypedErrors(t *testing.T) {
	cases := []struct {
		name  string
		fault oauthclienttest.Fault
		check func(error) bool
	}{
		{"503 with Retry-After", oauthclienttest.Unavailable(30 * time.Second), func(err error) bool {
			var u *oauthclient.UnavailableError
			return errors.As(err, &u) && u.Status == 503 && u.RetryAfter == 30*time.Second
		}},
		{"429 with Retry-After", oauthclienttest.TooManyRequests(2 * time.Second), func(err error) bool {
			var u *oauthclient.UnavailableError
			return errors.As(err, &u) && u.Status == 429 && u.RetryAfter == 2*time.Second
		}},
		{"500", oauthclienttest.ServerError(), func(err error) bool {
			var u *oauthclient.UnavailableError
			return errors.As(err, &u) && u.Status == 500
		}},
		{"invalid_client", oauthclienttest.InvalidClient(), func(err error) bool {
			var r *oauthclient.ClientRejectedError
			return errors.As(err, &r)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := oauthclienttest.NewServer(t)
			srv.Fail(c.fault)
			_, err := newPattern(t, srv).Token(context.Background())
			if !c.check(err) {
				t.Fatalf("Token error = %#v (%v)", err, err)
			}
		})
	}
}

func TestServerHangEndsAtTheCallersDeadline(t *testing.T) {
	srv := oauthclienttest.NewServer(t)
	srv.Fail(oauthclienttest.Hang())
	p := newPattern(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := p.Token(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Token error = %v, want the caller's deadline", err)
	}
}

func TestServerExchangesCallerTokens(t *testing.T) {
	srv := oauthclienttest.NewServer(t)
	c, err := oauthclient.New(srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	p, err := oauthclient.TokenExchange("orders", oauthclient.WithClient(c), oauthclient.Audience("orders-api"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := p.TokenFor(context.Background(), "caller-token")
	if err != nil || tok.Value == "" {
		t.Fatalf("TokenFor = %v, %v", tok, err)
	}
	f := srv.Requests()[0].Form
	if f.Get("grant_type") != oauthclienttest.GrantTokenExchange || f.Get("subject_token") != "caller-token" || f.Get("audience") != "orders-api" {
		t.Fatalf("exchange form = %v", f)
	}
}
