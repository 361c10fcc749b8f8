package devissuer_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/modules/oauthclient"
)

// start starts an issuer that stops with the test.
func start(t *testing.T, opts devissuer.Options) *devissuer.Issuer {
	t.Helper()
	iss, err := devissuer.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { iss.Close() })
	return iss
}

// send posts form to u with h's headers and returns the status, the
// headers and the JSON body.
func send(t *testing.T, u string, form url.Values, h http.Header) (int, http.Header, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, resp.Header, body
}

// basic is the Authorization header of the issuer's first client.
func basic(iss *devissuer.Issuer) http.Header {
	r, _ := http.NewRequest("GET", "/", nil)
	r.SetBasicAuth(iss.ClientID, iss.ClientSecret)
	return http.Header{"Authorization": r.Header["Authorization"]}
}

// getJSON GETs u and returns the status and JSON body.
func getJSON(t *testing.T, u string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

// ecKey makes a P-256 key and its PKCS#8 PEM.
func ecKey(t *testing.T) (*ecdsa.PrivateKey, []byte) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	return k, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// openClient opens an oauthclient.Client on the issuer with opts, closed
// with the test.
func openClient(t *testing.T, iss *devissuer.Issuer, opts ...oauthclient.Option) *oauthclient.Client {
	t.Helper()
	c, err := oauthclient.New(append([]oauthclient.Option{oauthclient.WithoutEnv(), oauthclient.Issuer(iss.URL)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// fetch gets a client-credentials token of c for audience.
func fetch(t *testing.T, c *oauthclient.Client, audience string) oauthclient.AccessToken {
	t.Helper()
	p, err := oauthclient.ClientCredentials("p-"+audience, oauthclient.WithClient(c), oauthclient.Audience(audience))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := p.Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
