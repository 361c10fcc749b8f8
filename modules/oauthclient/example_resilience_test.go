package oauthclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// An API that answers 503 to every other request: the resilient pattern's
// client retries the GET, and the caller sees the 200. A POST without an
// Idempotency-Key would be sent once.
func ExampleResilience() {
	iss, err := devissuer.Start(devissuer.Options{})
	if err != nil {
		panic(err)
	}
	defer iss.Close()
	var n atomic.Int64
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer flaky.Close()

	ctx := context.Background()
	c, err := oauthclient.New(oauthclient.WithoutEnv(), oauthclient.Issuer(iss.URL),
		oauthclient.ClientID(iss.ClientID), oauthclient.ClientSecret(secret.String(iss.ClientSecret)))
	if err != nil {
		panic(err)
	}
	defer c.Close(ctx)
	orders, err := oauthclient.ClientCredentials("orders", oauthclient.WithClient(c),
		oauthclient.Resilience{IdempotencyKeys: true}) // the defaults otherwise
	if err != nil {
		panic(err)
	}

	resp, err := orders.Client().Get(flaky.URL + "/orders/42")
	var open *oauthclient.CircuitOpenError
	switch {
	case errors.As(err, &open): // the breaker refused it unsent: 503 circuit-breaker-open
		fmt.Println("retry in", open.RetryAfter)
	case err != nil:
		panic(err)
	default:
		resp.Body.Close()
		fmt.Println(resp.StatusCode, "after", n.Load(), "requests")
	}
	// Output: 200 after 2 requests
}
