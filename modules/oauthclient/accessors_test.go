package oauthclient_test

import (
	"strings"
	"testing"

	"go.uber.org/zap/zapcore"

	"github.com/svckit/svc/modules/oauthclient"
)

// described is what a log line says of c.
func described(t *testing.T, c *oauthclient.Client) map[string]any {
	t.Helper()
	enc := zapcore.NewMapObjectEncoder()
	if err := c.MarshalLogObject(enc); err != nil {
		t.Fatal(err)
	}
	return enc.Fields
}

// What a start line may print of a client: its issuer and token endpoint
// (the discovered one once discovery ran) and its client ID, never its
// secret, and URLs with their user information masked.
func TestClientDescribesItsServer(t *testing.T) {
	s := newTokenServer(t)
	c := newClient(t, s, newClock())
	if got := described(t, c); got["issuer"] != s.URL || got["token_endpoint"] != s.URL+"/token" {
		t.Fatalf("described as %v", got)
	}
	direct, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.TokenEndpoint("https://as.example/token?key=s3cret"),
		oauthclient.ClientID("svc"), oauthclient.ClientSecret("s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	got := described(t, direct)
	if _, has := got["issuer"]; has || got["client_id"] != "svc" || len(got) != 2 {
		t.Fatalf("described as %v", got)
	}
	if ep, _ := got["token_endpoint"].(string); ep == "" || strings.Contains(ep, "s3cret") {
		t.Fatalf("token endpoint described as %q", ep)
	}
}
