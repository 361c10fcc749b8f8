package oauthclient_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/secret"
)

// The service calls the billing API with its own token: fetched once,
// cached, refreshed ahead of expiry, and attached by the pattern's client.
// In an fx app, fxsvc.OAuthClient() and fxsvc.ClientCredentials("billing")
// do the wiring, with the settings from SVC_OAUTHCLIENT_*.
func Example() {
	iss, err := devissuer.Start(devissuer.Options{}) // an authorization server on 127.0.0.1
	if err != nil {
		panic(err)
	}
	defer iss.Close()
	billingAPI := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "bearer token sent: ", strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ey"))
	}))
	defer billingAPI.Close()

	ctx := context.Background()
	c, err := oauthclient.New(oauthclient.WithoutEnv(),
		oauthclient.Issuer(iss.URL), // http is accepted on loopback only
		oauthclient.ClientID(iss.ClientID),
		oauthclient.ClientSecret(secret.String(iss.ClientSecret)))
	if err != nil {
		panic(err)
	}
	if err := c.Open(ctx); err != nil {
		panic(err)
	}
	defer c.Close(ctx)
	billing, err := oauthclient.ClientCredentials("billing", oauthclient.WithClient(c), oauthclient.Audience("billing"))
	if err != nil {
		panic(err)
	}

	resp, err := billing.Client().Get(billingAPI.URL + "/invoices")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(string(body))

	tok, _ := billing.Token(ctx) // the cached one
	fmt.Println(tok)             // printing never shows the value
	// Output:
	// bearer token sent: true
	// Bearer ***
}
