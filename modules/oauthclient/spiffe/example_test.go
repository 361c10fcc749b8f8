package spiffe_test

import (
	"context"
	"log"

	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/modules/oauthclient/spiffe"
)

// The service authenticates to its authorization server with the JWT-SVID
// its SPIRE agent issues: no client secret, no key file.
func Example() {
	// Compile-only: it needs a SPIRE agent's Workload API socket.
	ctx := context.Background()
	src, err := spiffe.New(ctx, "unix:///run/spire/agent.sock", "https://login.example.com")
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	client, err := oauthclient.New(
		oauthclient.Issuer("https://login.example.com"),
		oauthclient.ClientID("billing"),
		oauthclient.Assertion(src.Assertion),
	)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close(ctx)
}
