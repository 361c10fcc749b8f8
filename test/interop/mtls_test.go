package interop_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/svckit/svc/modules/authn"
	"github.com/svckit/svc/modules/oauthclient"
	"github.com/svckit/svc/test/internal/oidcprovider"
)

// testCert is a certificate made for one test run: never a committed key.
type testCert struct {
	cert     *x509.Certificate
	key      *ecdsa.PrivateKey
	certFile string // PEM, for oauthclient.TLSClientAuth
	keyFile  string
}

// issue makes a certificate for cn, signed by parent (self-signed when parent is nil).
func issue(t *testing.T, cn string, parent *testCert, isCA bool) *testCert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if isCA {
		tmpl.KeyUsage |= x509.KeyUsageCertSign
		tmpl.BasicConstraintsValid, tmpl.IsCA = true, true
	}
	signer, signerKey := tmpl, key
	if parent != nil {
		signer, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := &testCert{cert: cert, key: key, certFile: filepath.Join(dir, "tls.crt"), keyFile: filepath.Join(dir, "tls.key")}
	if err := os.WriteFile(c.certFile, c.pem(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *testCert) pem() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.cert.Raw})
}

// thumbprint is the certificate's x5t#S256 (RFC 8705 §3.1).
func (c *testCert) thumbprint() string {
	sum := sha256.Sum256(c.cert.Raw)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func (c *testCert) tls() tls.Certificate {
	return tls.Certificate{Certificate: [][]byte{c.cert.Raw}, PrivateKey: c.key, Leaf: c.cert}
}

// jwks registers the certificate's key, with the certificate, for
// self_signed_tls_client_auth.
func (c *testCert) jwks(t *testing.T) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &c.key.PublicKey, Certificates: []*x509.Certificate{c.cert}}}})
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
	ca := issue(t, "svc test client CA", nil, true)
	pki := issue(t, "svc-mtls-client", ca, false)
	mallory := issue(t, "svc-mtls-client", ca, false) // same CA, same subject, another key
	self := issue(t, "svc-self-signed-client", nil, false)
	p := oidcprovider.Start(t, oidcprovider.Options{
		MTLS:     true,
		ClientCA: ca.pem(),
		Clients: []oidcprovider.Client{
			{ID: "mtls-pki", AuthMethod: "tls_client_auth", SubjectDN: "CN=svc-mtls-client", CertificateBound: true},
			{ID: "mtls-self", AuthMethod: "self_signed_tls_client_auth", JWKS: self.jwks(t), CertificateBound: true},
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
		cert             *testCert
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
			log := p.TokenRequestLog(t)
			if len(log) != 1 || !log[0].MTLS || log[0].Certificate != tc.cert.thumbprint() || log[0].Status != http.StatusOK {
				t.Fatalf("token requests %+v, want one to the mtls alias presenting %s", log, tc.cert.thumbprint())
			}
			if log[0].Form["client_id"] != tc.clientID || log[0].Form["client_secret"] != nil || log[0].Authorization != "" {
				t.Fatalf("token request form %v, Authorization %q: want client_id alone", log[0].Form, log[0].Authorization)
			}
			tok, err := pat.Token(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := cnfThumbprint(t, tok.Value); got != tc.cert.thumbprint() {
				t.Fatalf("cnf.x5t#S256 = %q, want the client certificate's %q", got, tc.cert.thumbprint())
			}
			if _, err := pat.TokenSource(context.Background()).Token(); err == nil || !strings.Contains(err.Error(), "Pattern.Transport") {
				t.Fatalf("TokenSource handed out a bound token: %v", err)
			}

			// The same token over another certificate, or none, is refused.
			for name, cert := range map[string]*testCert{"another certificate": mallory, "no certificate": nil} {
				tr := api.Client().Transport.(*http.Transport).Clone()
				if cert != nil {
					tr.TLSClientConfig.Certificates = []tls.Certificate{cert.tls()}
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
func certPattern(t *testing.T, p *oidcprovider.Provider, clientID string, cert *testCert) *oauthclient.Pattern {
	t.Helper()
	c := ocClient(t, p, &ocClock{now: time.Now()}, oauthclient.ClientID(clientID),
		oauthclient.TLSClientAuth(cert.certFile, cert.keyFile),
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
