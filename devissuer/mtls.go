package devissuer

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// certLifetime is how long the development CA and its certificates last:
// a development server's lifetime, with room.
const certLifetime = 7 * 24 * time.Hour

// devCA is the server's own certificate authority: it signs the mTLS
// listener's certificate and the clients' certificates, and nothing
// else trusts it.
type devCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
	pem  []byte
}

func newDevCA() (*devCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("devissuer: CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "devissuer development CA (never trust it elsewhere)"},
		NotBefore:             time.Now().Add(-time.Minute),
		NotAfter:              time.Now().Add(certLifetime),
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("devissuer: CA certificate: %w", err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &devCA{cert: cert, key: key, pool: pool, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
}

// issue signs a certificate for cn: a server's for host when host is set,
// else a client's.
func (ca *devCA) issue(cn, host string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("devissuer: certificate key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(certLifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if host != "" {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.DNSNames = []string{"localhost"}
		if ip := net.ParseIP(host); ip != nil {
			tmpl.IPAddresses = []net.IP{ip}
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, host)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, fmt.Errorf("devissuer: certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("devissuer: certificate key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}

func (ca *devCA) serverCertificate(host string) (tls.Certificate, error) {
	certPEM, keyPEM, err := ca.issue("devissuer", host)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// ClientCertificate makes a client certificate of the development CA
// with subject CN clientID, as PEM certificate and PKCS#8 key (for
// oauthclient.TLSClientAuth, or a service's own client). Presented on the
// mTLS endpoints (mtls_endpoint_aliases), it authenticates a client
// registered with Certificate (tls_client_auth), and binds the tokens
// issued to it (cnf.x5t#S256) whatever the client's method.
func (i *Issuer) ClientCertificate(clientID string) (certPEM, keyPEM []byte, err error) {
	return i.srv.ca.issue(clientID, "")
}

// CACertificate is the development CA's certificate, PEM: the root a
// client trusts to reach the mTLS endpoints, and a service trusts for the
// client certificates of ClientCertificate.
func (i *Issuer) CACertificate() []byte { return i.srv.ca.pem }

// RootCAs is a pool holding only the development CA, for a client's
// tls.Config.RootCAs (or a server's ClientCAs).
func (i *Issuer) RootCAs() *x509.CertPool { return i.srv.ca.pool.Clone() }

// MTLSURL is the issuer's URL on the mTLS listener: the base of its
// mtls_endpoint_aliases (RFC 8705 §5).
func (i *Issuer) MTLSURL() string { return i.srv.mtlsBase + i.path }
