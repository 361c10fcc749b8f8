package oauthclienttest_test

import (
	"errors"
	"testing"
	"time"

	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/modules/oauthclient/oauthclienttest"
)

// testTokenServerDown is a test function of the app's (TestTokenServerDown
// in its own _test.go file).
func testTokenServerDown(t *testing.T) {
	srv := oauthclienttest.NewServer(t)
	c, err := oauthclient.New(srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(t.Context()) })
	billing, _ := oauthclient.ClientCredentials("billing", oauthclient.WithClient(c))

	srv.Fail(oauthclienttest.Unavailable(30 * time.Second)) // next answer: 503 + Retry-After
	_, err = billing.Token(t.Context())
	var down *oauthclient.UnavailableError
	if !errors.As(err, &down) || down.Reason != "retry_after" {
		t.Fatalf("token while the server is down: %v", err)
	}
	if len(srv.Requests()) != 1 {
		t.Fatalf("%d fetches, want 1", len(srv.Requests()))
	}
}

// In a test function: a real authorization server on 127.0.0.1 that fails
// on demand, to hold what the service does when its token server is down.
func ExampleNewServer() {
	// Compile-only: the steps need a test's *testing.T, which an Example
	// has not; TestExampleNewServer runs them.
	_ = testTokenServerDown
}
