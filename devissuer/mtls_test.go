package devissuer_test

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/svckit/svc/devissuer"
	"github.com/svckit/svc/modules/oauthclient"
)

// svc's client with TLSClientAuth and a certificate of the issuer's CA
// authenticates by tls_client_auth at the mTLS alias discovery names,
// and its token is bound to the certificate (cnf.x5t#S256).
func TestCertificateBoundTokensByTLSClientAuth(t *testing.T) {
	t.Parallel()
	iss := start(t, devissuer.Options{})
	if err := iss.Register(devissuer.Client{ID: "ledger", Certificate: true}); err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := iss.ClientCertificate("ledger")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	_ = os.WriteFile(certFile, certPEM, 0o600)
	_ = os.WriteFile(keyFile, keyPEM, 0o600)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: iss.RootCAs()}}}
	c := openClient(t, iss, oauthclient.ClientID("ledger"), oauthclient.TLSClientAuth(certFile, keyFile), oauthclient.HTTPClient(hc))
	tok := fetch(t, c, "ledger-api")
	block, _ := pem.Decode(certPEM)
	sum := sha256.Sum256(block.Bytes)
	cl := claimsOf(t, tok.Value)
	cnf, _ := cl["cnf"].(map[string]any)
	if cnf["x5t#S256"] != base64.RawURLEncoding.EncodeToString(sum[:]) || cl["client_id"] != "ledger" {
		t.Fatalf("claims %v", cl)
	}

	// Another client's certificate, or a client not registered for it, is refused.
	other, otherKey, _ := iss.ClientCertificate("mallory")
	pair, _ := tls.X509KeyPair(other, otherKey)
	mc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: iss.RootCAs(), Certificates: []tls.Certificate{pair}}}}
	mtlsToken := iss.MTLSURL() + "/token"
	for _, id := range []string{"ledger", "mallory"} {
		resp, err := mc.PostForm(mtlsToken, map[string][]string{"grant_type": {"client_credentials"}, "client_id": {id}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("%s with mallory's certificate: %d", id, resp.StatusCode)
		}
	}
}
