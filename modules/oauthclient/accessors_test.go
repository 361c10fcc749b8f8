package oauthclient_test

import (
	"testing"

	"github.com/svckit/svc/modules/oauthclient"
)

// What a start line may print of a client: its issuer and token endpoint
// (the discovered one once discovery ran), never its secret.
func TestClientDescribesItsServer(t *testing.T) {
	s := newTokenServer(t)
	c := newClient(t, s, newClock())
	if c.Issuer() != s.URL || c.TokenEndpoint() != s.URL+"/token" {
		t.Fatalf("issuer %q, token endpoint %q", c.Issuer(), c.TokenEndpoint())
	}
	direct, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint("https://as.example/token"),
		oauthclient.ClientID("svc"), oauthclient.ClientSecret("s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	if direct.Issuer() != "" || direct.TokenEndpoint() != "https://as.example/token" {
		t.Fatalf("issuer %q, token endpoint %q", direct.Issuer(), direct.TokenEndpoint())
	}
}
