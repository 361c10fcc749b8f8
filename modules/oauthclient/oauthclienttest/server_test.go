package oauthclienttest_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
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
	if len(srv.Requests()) != 1 {
		t.Fatalf("%d token requests, want 1 (the pattern caches)", len(srv.Requests()))
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
		{"invalid_grant", oauthclienttest.InvalidGrant(), func(err error) bool {
			var r *oauthclient.TokenRefusedError
			return errors.As(err, &r) && r.Status == 400 && r.Code == "invalid_grant"
		}},
		{"refusal with a description", oauthclienttest.Refuse(400, "invalid_request", "DPoP proof is missing"), func(err error) bool {
			var r *oauthclient.TokenRefusedError
			return errors.As(err, &r) && r.Status == 400 && r.Code == "invalid_request" && r.Description == "DPoP proof is missing"
		}},
		{"503 without Retry-After", oauthclienttest.Unavailable(0), func(err error) bool {
			var u *oauthclient.UnavailableError
			return errors.As(err, &u) && u.Status == 503 && u.RetryAfter == 0
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
	if f.Get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange" || f.Get("subject_token") != "caller-token" || f.Get("audience") != "orders-api" {
		t.Fatalf("exchange form = %v", f)
	}
}

// A hung request ends when the test does, even for a client that never
// gives up: the server's cleanup does not wait for it (httptest's Close
// otherwise blocks until the client's own timeout, or forever).
func TestServerHangEndsAtTheTestsCleanup(t *testing.T) {
	// giveUp only bounds a broken kit; a request it ends fails the test.
	giveUp, cancel := context.WithCancel(context.Background())
	defer cancel()
	safety := time.AfterFunc(time.Minute, cancel)
	defer safety.Stop()
	answered := make(chan error, 1)
	t.Run("a test whose client never gives up", func(t *testing.T) {
		srv := oauthclienttest.NewServer(t)
		srv.Fail(oauthclienttest.Hang())
		form := url.Values{"grant_type": {"client_credentials"}}
		req, err := http.NewRequestWithContext(giveUp, http.MethodPost, srv.URL+"/token", strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(oauthclienttest.ClientID, oauthclienttest.ClientSecret)
		go func() {
			resp, err := (&http.Client{}).Do(req)
			if err == nil {
				resp.Body.Close()
			}
			answered <- err
		}()
		for len(srv.Requests()) == 0 {
			time.Sleep(time.Millisecond)
		}
	})
	err := <-answered
	if giveUp.Err() != nil {
		t.Fatal("the hung request outlived the test: the server's cleanup waited for it")
	}
	if err == nil {
		t.Fatal("a hung request was answered at cleanup; want the connection dropped")
	}
}

// Requests holds a request whose body does not parse: it was
// received, and answered invalid_request.
func TestServerCountsARequestWhoseBodyDoesNotParse(t *testing.T) {
	srv := oauthclienttest.NewServer(t)
	resp, err := http.Post(srv.URL+"/token", "application/x-www-form-urlencoded", strings.NewReader("grant_type=%zz"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status = %d, want 400 invalid_request", resp.StatusCode)
	}
	if got := srv.Requests(); len(got) != 1 {
		t.Fatalf("Requests = %+v, want the one that did not parse", got)
	}
}

// A request the server refuses (an exchange without a subject token, a
// grant it does not know) issues nothing: the next token is still tok-1,
// and IssueWith's mint is not asked for it.
func TestServerIssuesNothingForARefusedGrant(t *testing.T) {
	srv := oauthclienttest.NewServer(t)
	var minted atomic.Int32
	for _, form := range []url.Values{
		{"grant_type": {"urn:ietf:params:oauth:grant-type:token-exchange"}},
		{"grant_type": {"password"}},
	} {
		if resp := postToken(t, srv, form, oauthclienttest.ClientID, oauthclienttest.ClientSecret); resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("%s: status %d, want 400", form.Get("grant_type"), resp.StatusCode)
		}
	}
	if tok, err := newPattern(t, srv).Token(context.Background()); err != nil || tok.Value != "tok-1" {
		t.Fatalf("first issued token = %q, %v; want tok-1", tok.Value, err)
	}
	srv.IssueWith(func(oauthclienttest.Request) string { minted.Add(1); return "minted" })
	postToken(t, srv, url.Values{"grant_type": {"password"}}, oauthclienttest.ClientID, oauthclienttest.ClientSecret)
	if n := minted.Load(); n != 0 {
		t.Fatalf("mint called %d times for a refused grant", n)
	}
}

// Lifetime sets expires_in, and IssueWith's mint is handed the request and
// decides the token.
func TestServerLifetimeAndIssueWith(t *testing.T) {
	srv := oauthclienttest.NewServer(t)
	srv.Lifetime(20 * time.Minute)
	srv.IssueWith(func(rq oauthclienttest.Request) string { return "minted-for-" + rq.ClientID })
	before := time.Now()
	tok, err := newPattern(t, srv).Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tok.Value != "minted-for-"+oauthclienttest.ClientID {
		t.Fatalf("token = %q, want the minted one", tok.Value)
	}
	// The pattern may serve a token for less than its lifetime, never more.
	if tok.ExpiresAt.After(time.Now().Add(20*time.Minute)) || !tok.ExpiresAt.After(before.Add(10*time.Minute)) {
		t.Fatalf("expires at %v, want within 20 minutes of %v", tok.ExpiresAt, before)
	}
}

// RFC 6749 §5.2: a 401 invalid_client to a client that authenticated with
// Basic carries a Basic challenge; one to a client that sent its secret in
// the body carries none.
func TestInvalidClientChallengesABasicClient(t *testing.T) {
	srv := oauthclienttest.NewServer(t)
	form := url.Values{"grant_type": {"client_credentials"}}
	if resp := postToken(t, srv, form, "wrong", "wrong"); resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic") {
		t.Fatalf("Basic client: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	form.Set("client_id", "wrong")
	form.Set("client_secret", "wrong")
	if resp := postToken(t, srv, form, "", ""); resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != "" {
		t.Fatalf("body client: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

// postToken posts form to srv's token endpoint, with Basic authentication
// when id is set, and returns the answer, its body closed.
func postToken(t *testing.T, srv *oauthclienttest.Server, form url.Values, id, secret string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/token", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if id != "" {
		req.SetBasicAuth(id, secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}
