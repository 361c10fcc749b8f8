package interop_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/svckit/svc/internal/testcert"
	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/test/internal/oidcprovider"
)

// jwks registers c's key, with the certificate, for self_signed_tls_client_auth.
func jwks(t *testing.T, c tls.Certificate) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: c.Leaf.PublicKey, Certificates: []*x509.Certificate{c.Leaf}}}})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// The outbound client authenticates to oidc-provider with its TLS
// certificate (RFC 8705 §2, both methods) at the mtls_endpoint_aliases token
// endpoint, gets a token bound to that certificate, and calls an svc API
// guarded by authn.CertificateBound over TLS with the same certificate;
// the token with another certificate, or none, is refused.
func TestMTLSBoundTokenEndToEnd(t *testing.T) {
	ca := testcert.NewCA(t, testcert.Name("svc test client CA"))
	pki := ca.Client(t, "svc-mtls-client")
	mallory := ca.Client(t, "svc-mtls-client") // same CA, same subject, another key
	self := testcert.SelfSigned(t, testcert.Name("svc-self-signed-client"))
	p := oidcprovider.Start(t, oidcprovider.Options{
		MTLS:     true,
		ClientCA: testcert.CertPEM(ca.Cert.Raw),
		Clients: []oidcprovider.Client{
			{ID: "mtls-pki", AuthMethod: "tls_client_auth", SubjectDN: "CN=svc-mtls-client", CertificateBound: true},
			{ID: "mtls-self", AuthMethod: "self_signed_tls_client_auth", JWKS: jwks(t, self), CertificateBound: true},
		},
	})
	v := openDiscover(t, p)
	g, err := authn.New(v, authn.CertificateBound(""))
	if err != nil {
		t.Fatal(err)
	}
	h, err := g.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewUnstartedServer(h)
	api.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	api.StartTLS()
	t.Cleanup(api.Close)

	for _, tc := range []struct {
		method, clientID string
		cert             tls.Certificate
	}{
		{"tls_client_auth", "mtls-pki", pki},
		{"self_signed_tls_client_auth", "mtls-self", self},
	} {
		t.Run(tc.method, func(t *testing.T) {
			pat := certPattern(t, p, tc.clientID, tc.cert)
			p.ResetCounters(t)

			resp, err := pat.Transport(api.Client().Transport.(*http.Transport).Clone()).RoundTrip(mustRequest(t, api.URL+"/orders"))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || string(body) != "ok" {
				t.Fatalf("API call with the bound token: status %d, body %s", resp.StatusCode, body)
			}
			thumbprint := testcert.Thumbprint(tc.cert.Certificate[0])
			log := p.TokenRequestLog(t)
			if len(log) != 1 || !log[0].MTLS || log[0].Certificate != thumbprint || log[0].Status != http.StatusOK {
				t.Fatalf("token requests %+v, want one to the mtls alias presenting %s", log, thumbprint)
			}
			if log[0].Form["client_id"] != tc.clientID || log[0].Form["client_secret"] != nil || log[0].Authorization != "" {
				t.Fatalf("token request form %v, Authorization %q: want client_id alone", log[0].Form, log[0].Authorization)
			}
			tok, err := pat.Token(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := cnfThumbprint(t, tok.Value); got != thumbprint {
				t.Fatalf("cnf.x5t#S256 = %q, want the client certificate's %q", got, thumbprint)
			}
			if _, err := pat.TokenSource(context.Background()).Token(); err == nil || !strings.Contains(err.Error(), "Pattern.Transport") {
				t.Fatalf("TokenSource handed out a bound token: %v", err)
			}

			// The same token over another certificate, or none, is refused.
			for name, cert := range map[string]tls.Certificate{"another certificate": mallory, "no certificate": {}} {
				tr := api.Client().Transport.(*http.Transport).Clone()
				if cert.Certificate != nil {
					tr.TLSClientConfig.Certificates = []tls.Certificate{cert}
				}
				req := mustRequest(t, api.URL+"/orders")
				req.Header.Set("Authorization", "Bearer "+tok.Value)
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				tr.CloseIdleConnections()
				if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "invalid_token") {
					t.Fatalf("%s: status %d, challenge %q, want 401 invalid_token", name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
				}
			}
		})
	}

	t.Run("a certificate the server does not know is refused at the token endpoint", func(t *testing.T) {
		_, err := certPattern(t, p, "mtls-self", pki).Token(context.Background())
		var cr *oauthclient.ClientRejectedError
		if !errors.As(err, &cr) || cr.Code != "invalid_client" || cr.Method != "tls_client_auth" {
			t.Fatalf("err = %v, want invalid_client for tls_client_auth", err)
		}
	})
}

// certPattern is a client-credentials pattern for p's resource, of a client
// that authenticates with cert and trusts p's mutual-TLS listener.
func certPattern(t *testing.T, p *oidcprovider.Provider, clientID string, cert tls.Certificate) *oauthclient.Pattern {
	t.Helper()
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	testcert.Write(t, cert, certFile, keyFile)
	c := ocClient(t, p, &ocClock{now: time.Now()}, oauthclient.ClientID(clientID),
		oauthclient.TLSClientAuth(certFile, keyFile),
		oauthclient.HTTPClient(&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.MTLSRoots}}}))
	pat, err := oauthclient.ClientCredentials("api", oauthclient.WithoutEnv(), oauthclient.WithClient(c),
		oauthclient.Resource(p.Resource), oauthclient.Scopes("read"))
	if err != nil {
		t.Fatal(err)
	}
	return pat
}

func mustRequest(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// cnfThumbprint reads cnf.x5t#S256 of a JWT access token (unverified: the
// API verified it already).
func cnfThumbprint(t *testing.T, tok string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("the access token is not a JWT")
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Cnf map[string]string `json:"cnf"`
	}
	if err := json.Unmarshal(raw, &claims); err != nil {
		t.Fatal(err)
	}
	return claims.Cnf["x5t#S256"]
}
