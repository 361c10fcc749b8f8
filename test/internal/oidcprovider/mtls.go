package oidcprovider

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"testing"

	"github.com/svckit/svc/internal/testcert"
)

// newMTLSConfig checks clientCA, the PEM CA of tls_client_auth clients; Start adds the
// listener's own certificate (addListenerCert).
func newMTLSConfig(clientCA []byte) (*mtlsConfig, error) {
	if block, _ := pem.Decode(clientCA); block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("Options.MTLS needs Options.ClientCA, a PEM CERTIFICATE")
	}
	return &mtlsConfig{CA: string(clientCA)}, nil
}

// addListenerCert makes the mutual-TLS listener's certificate: self-signed, for 127.0.0.1,
// valid for a day, made for this run only.
func (m *mtlsConfig) addListenerCert(t testing.TB) {
	t.Helper()
	c := testcert.SelfSigned(t, testcert.Name("oidcprovider mtls listener"), testcert.Hosts("127.0.0.1"))
	m.Cert, m.Key = string(testcert.CertPEM(c.Certificate...)), string(testcert.KeyPEM(t, c))
}

// roots trusts the listener's certificate.
func (m *mtlsConfig) roots() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(m.Cert))
	return pool
}
