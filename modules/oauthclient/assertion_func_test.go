package oauthclient_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
)

// Issue 22 item 3: a client assertion from a source outside the process,
// asked at every token request with that request's context.
func TestAssertionSourceIsAskedAtEveryTokenRequest(t *testing.T) {
	s := newTokenServer(t)
	n := 0
	source := func(ctx context.Context) (string, error) {
		if ctx == nil {
			return "", errors.New("no context")
		}
		n++
		return []string{"", "svid-1", "svid-2"}[n], nil
	}
	c := newClient(t, s, newClock(), oauthclient.Assertion(source))
	a, b := newCC(t, c, "a"), newCC(t, c, "b")
	mustToken(t, a)
	mustToken(t, b)
	for i, want := range []string{"svid-1", "svid-2"} {
		f := s.form(i)
		if f.Get("client_assertion") != want || f.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" ||
			f.Get("client_id") != "svc-client" || f.Has("client_secret") {
			t.Fatalf("token request %d: %v", i, f)
		}
		if s.header(i).Get("Authorization") != "" {
			t.Fatalf("token request %d sent an Authorization header beside the assertion", i)
		}
	}
}

// A source that fails fails the fetch as unavailable (503 for a handler),
// and nothing is sent.
func TestAssertionSourceFailure(t *testing.T) {
	s := newTokenServer(t)
	c := newClient(t, s, newClock(), oauthclient.Assertion(func(context.Context) (string, error) {
		return "", errors.New("workload API: no identity issued")
	}))
	_, err := newCC(t, c, "a").Token(context.Background())
	var ue *oauthclient.UnavailableError
	if !errors.As(err, &ue) || ue.Reason != oauthclient.ReasonAssertion {
		t.Fatalf("err = %v, want an UnavailableError of reason assertion", err)
	}
	// The endpoint was never contacted: the message says what failed.
	if want := "oauthclient: the client assertion source (oauthclient.Assertion) failed: workload API: no identity issued; no new fetch before "; !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %q, want it to start %q", err, want)
	}
	if s.count.Load() != 0 {
		t.Fatal("a token request was sent without an assertion")
	}
	if _, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint(s.URL+"/token"),
		oauthclient.ClientID("svc"), oauthclient.Assertion(nil)); err == nil {
		t.Fatal("a nil assertion source was accepted")
	}
}

// A source that never answers (a Workload API that accepts and hangs) is
// bounded by the client's Timeout, as the token request is: the call ends
// with an error naming the source, and the source saw the deadline.
func TestAssertionSourceIsBoundedByTheTimeout(t *testing.T) {
	s := newTokenServer(t)
	sawDeadline := make(chan bool, 1)
	c := newClient(t, s, newClock(), oauthclient.Timeout(time.Second), oauthclient.Assertion(func(ctx context.Context) (string, error) {
		_, ok := ctx.Deadline()
		select {
		case sawDeadline <- ok:
		default:
		}
		<-ctx.Done()
		return "", ctx.Err()
	}))
	err := tokenOrHang(t, newCC(t, c, "a"), "a hung assertion source")
	var ue *oauthclient.UnavailableError
	if !errors.As(err, &ue) || ue.Reason != oauthclient.ReasonAssertion || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want an assertion failure from the deadline", err)
	}
	if !strings.Contains(err.Error(), "oauthclient.Assertion") {
		t.Fatalf("err = %q, want it to name oauthclient.Assertion", err)
	}
	if !<-sawDeadline {
		t.Fatal("the assertion source was called with no deadline")
	}
	if s.count.Load() != 0 {
		t.Fatal("a token request was sent without an assertion")
	}
}
