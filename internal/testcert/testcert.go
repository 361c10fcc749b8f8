// Package testcert makes X.509 certificates for svc's tests: a CA and the
// leaves it signs, self-signed leaves, their PEM files and RFC 8705
// thumbprints. Every key is ECDSA P-256 made for the run unless [Key]
// gives another; nothing here is fit for a deployment. A function fails
// the test instead of returning an error.
package testcert

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority made for one test.
type CA struct {
	// Cert is the CA's self-signed certificate: the root to trust.
	Cert *x509.Certificate
	key  crypto.Signer
}

// Option changes a certificate before it is signed.
type Option func(*template)

type template struct {
	cert *x509.Certificate
	key  crypto.Signer
}

// Name sets the subject's common name (the only attribute of the subject).
func Name(commonName string) Option {
	return func(t *template) { t.cert.Subject = pkix.Name{CommonName: commonName} }
}

// Hosts sets the subject alternative names: an IP address for each host
// that parses as one, a DNS name for the others.
func Hosts(hosts ...string) Option {
	return func(t *template) {
		t.cert.IPAddresses, t.cert.DNSNames = nil, nil
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				t.cert.IPAddresses = append(t.cert.IPAddresses, ip)
			} else {
				t.cert.DNSNames = append(t.cert.DNSNames, h)
			}
		}
	}
}

// Valid sets the validity, for a test of an expired or not yet valid
// certificate or one that compares the dates. The default is from an hour
// ago to a day ahead, so that no test outlives it.
func Valid(notBefore, notAfter time.Time) Option {
	return func(t *template) { t.cert.NotBefore, t.cert.NotAfter = notBefore, notAfter }
}

// Key certifies key (an RSA key, say) instead of a fresh P-256 key.
func Key(key crypto.Signer) Option {
	return func(t *template) { t.key = key }
}

// NewCA makes a self-signed CA, named "testcert CA" unless [Name] says.
func NewCA(t testing.TB, opts ...Option) *CA {
	t.Helper()
	tmpl := newTemplate(t, "testcert CA", opts)
	tmpl.cert.IsCA, tmpl.cert.BasicConstraintsValid = true, true
	tmpl.cert.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	c := sign(t, tmpl, nil, nil)
	return &CA{Cert: c.Leaf, key: tmpl.key}
}

// Server makes a server certificate signed by ca, for 127.0.0.1 and
// localhost unless [Hosts] says, named after its first host.
func (ca *CA) Server(t testing.TB, opts ...Option) tls.Certificate {
	t.Helper()
	tmpl := newTemplate(t, "", append([]Option{Hosts("127.0.0.1", "localhost")}, opts...))
	return sign(t, server(tmpl), ca.Cert, ca.key)
}

// Client makes a client certificate for commonName signed by ca.
func (ca *CA) Client(t testing.TB, commonName string, opts ...Option) tls.Certificate {
	t.Helper()
	tmpl := newTemplate(t, commonName, opts)
	tmpl.cert.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	return sign(t, tmpl, ca.Cert, ca.key)
}

// SelfSigned makes a certificate that is its own issuer, which a peer
// trusts by the certificate itself: with [Hosts], a server's named after
// its first host; without, a client's (self_signed_tls_client_auth) named
// "testcert" unless [Name] says.
func SelfSigned(t testing.TB, opts ...Option) tls.Certificate {
	t.Helper()
	tmpl := newTemplate(t, "", opts)
	if len(tmpl.cert.IPAddresses)+len(tmpl.cert.DNSNames) > 0 {
		server(tmpl)
	} else {
		tmpl.cert.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
		if tmpl.cert.Subject.CommonName == "" {
			tmpl.cert.Subject.CommonName = "testcert"
		}
	}
	return sign(t, tmpl, nil, nil)
}

// Pool is a pool that trusts certs.
func Pool(certs ...*x509.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	for _, c := range certs {
		p.AddCert(c)
	}
	return p
}

// CertPEM is the DER certificates ders as PEM CERTIFICATE blocks, in order
// (a tls.Certificate's chain is c.Certificate...).
func CertPEM(ders ...[]byte) []byte {
	var out []byte
	for _, der := range ders {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	}
	return out
}

// KeyPEM is c's private key as a PEM PKCS #8 PRIVATE KEY block.
func KeyPEM(t testing.TB, c tls.Certificate) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(c.PrivateKey)
	if err != nil {
		t.Fatalf("testcert: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// Write writes c's chain to certFile and its key to keyFile as PEM,
// skipping a path that is "". Each file is written beside and renamed into
// place, as a secret mount or certbot does, so a reader watching the path
// never sees half a file.
func Write(t testing.TB, c tls.Certificate, certFile, keyFile string) {
	t.Helper()
	for _, f := range []struct {
		path string
		pem  func() []byte
	}{{certFile, func() []byte { return CertPEM(c.Certificate...) }}, {keyFile, func() []byte { return KeyPEM(t, c) }}} {
		if f.path == "" {
			continue
		}
		tmp := filepath.Join(filepath.Dir(f.path), "."+filepath.Base(f.path)+".tmp")
		if err := os.WriteFile(tmp, f.pem(), 0o600); err != nil {
			t.Fatalf("testcert: %v", err)
		}
		if err := os.Rename(tmp, f.path); err != nil {
			t.Fatalf("testcert: %v", err)
		}
	}
}

// Thumbprint is the x5t#S256 of the DER certificate der (RFC 8705 §3.1),
// computed here apart from svc's own code so that a test can check it.
func Thumbprint(der []byte) string {
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// newTemplate is a leaf of a fresh key and a random serial named
// commonName, valid from an hour ago to a day ahead, changed by opts.
func newTemplate(t testing.TB, commonName string, opts []Option) *template {
	t.Helper()
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		t.Fatalf("testcert: %v", err)
	}
	now := time.Now()
	tmpl := &template{cert: &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: commonName},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}}
	for _, o := range opts {
		o(tmpl)
	}
	if tmpl.key == nil {
		if tmpl.key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			t.Fatalf("testcert: %v", err)
		}
	}
	return tmpl
}

// server marks tmpl for server authentication, named after its first
// host when no name was given.
func server(tmpl *template) *template {
	c := tmpl.cert
	c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	if c.Subject.CommonName == "" {
		if len(c.IPAddresses) > 0 {
			c.Subject.CommonName = c.IPAddresses[0].String()
		} else if len(c.DNSNames) > 0 {
			c.Subject.CommonName = c.DNSNames[0]
		}
	}
	return tmpl
}

// sign signs tmpl with parentKey as parent, or with its own key when
// parent is nil.
func sign(t testing.TB, tmpl *template, parent *x509.Certificate, parentKey crypto.Signer) tls.Certificate {
	t.Helper()
	if parent == nil {
		parent, parentKey = tmpl.cert, tmpl.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl.cert, parent, tmpl.key.Public(), parentKey)
	if err != nil {
		t.Fatalf("testcert: %v", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("testcert: %v", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: tmpl.key, Leaf: leaf}
}
