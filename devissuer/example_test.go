package devissuer_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/modules/authn/authntest"
	"github.com/svckit/svc/modules/authn/bearer"
)

// In-process, in a test or a service's own development mode: real signed
// tokens the service's verifier accepts.
func ExampleStart() {
	iss, err := devissuer.Start(devissuer.Options{Audience: "orders"}) // 127.0.0.1, a free port
	if err != nil {
		panic(err)
	}
	defer iss.Close()

	tok, err := iss.Mint(devissuer.Token{Subject: "alice", Scopes: []string{"read"}})
	if err != nil {
		panic(err)
	}
	v := bearer.New(iss.URL, "orders")
	if err := v.Open(context.Background()); err != nil {
		panic(err)
	}
	defer v.Close(context.Background())
	if err := authntest.WaitReady(v, 10*time.Second); err != nil { // keys load in the background
		panic(err)
	}
	p, err := v.Verify(context.Background(), tok)
	fmt.Println(p.Subject, p.Scopes.List(), err)

	for _, line := range strings.Split(strings.TrimSpace(iss.Env()), "\n") {
		name, _, _ := strings.Cut(line, "=")
		fmt.Println(name) // each line is `export NAME=value`
	}
	// Output:
	// alice [read] <nil>
	// export SVC_AUTHN_ISSUER
	// export SVC_AUTHN_AUDIENCE
	// export SVC_OAUTHCLIENT_ISSUER
	// export SVC_OAUTHCLIENT_CLIENT_ID
	// export SVC_OAUTHCLIENT_CLIENT_SECRET
}
