package testcert_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/svckit/svc/internal/testcert"
)

// Each certificate verifies for its use against the roots a caller trusts
// it by, and for no other use or host.
func TestCertificatesVerifyForTheirUse(t *testing.T) {
	ca := testcert.NewCA(t)
	for _, tc := range []struct {
		name  string
		cert  tls.Certificate
		roots *x509.CertPool
		host  string
		usage x509.ExtKeyUsage
		ok    bool
	}{
		{"server for 127.0.0.1", ca.Server(t), testcert.Pool(ca.Cert), "127.0.0.1", x509.ExtKeyUsageServerAuth, true},
		{"server for localhost", ca.Server(t), testcert.Pool(ca.Cert), "localhost", x509.ExtKeyUsageServerAuth, true},
		{"server for another host", ca.Server(t), testcert.Pool(ca.Cert), "svc.test", x509.ExtKeyUsageServerAuth, false},
		{"server for its hosts", ca.Server(t, testcert.Hosts("svc.test")), testcert.Pool(ca.Cert), "svc.test", x509.ExtKeyUsageServerAuth, true},
		{"server as a client", ca.Server(t), testcert.Pool(ca.Cert), "", x509.ExtKeyUsageClientAuth, false},
		{"client", ca.Client(t, "alice"), testcert.Pool(ca.Cert), "", x509.ExtKeyUsageClientAuth, true},
		{"client of another CA", testcert.NewCA(t).Client(t, "alice"), testcert.Pool(ca.Cert), "", x509.ExtKeyUsageClientAuth, false},
		{"client as a server", ca.Client(t, "alice"), testcert.Pool(ca.Cert), "", x509.ExtKeyUsageServerAuth, false},
		{"self-signed client", testcert.SelfSigned(t), nil, "", x509.ExtKeyUsageClientAuth, true},
		{"self-signed server", testcert.SelfSigned(t, testcert.Hosts("127.0.0.1")), nil, "127.0.0.1", x509.ExtKeyUsageServerAuth, true},
		{"self-signed, not trusted", testcert.SelfSigned(t), testcert.Pool(ca.Cert), "", x509.ExtKeyUsageClientAuth, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			roots := tc.roots
			if roots == nil {
				roots = testcert.Pool(tc.cert.Leaf)
			}
			_, err := tc.cert.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: tc.host, KeyUsages: []x509.ExtKeyUsage{tc.usage}})
			if (err == nil) != tc.ok {
				t.Fatalf("Verify: %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

// The options set what they name; the defaults name a leaf after its role.
func TestOptions(t *testing.T) {
	ca := testcert.NewCA(t, testcert.Name("my CA"))
	key, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	notBefore, notAfter := time.Now().Add(-2*time.Hour).Truncate(time.Second), time.Now().Add(-time.Hour).Truncate(time.Second)
	expired := ca.Client(t, "bob", testcert.Valid(notBefore, notAfter), testcert.Key(key))
	for _, tc := range []struct{ name, got, want string }{
		{"CA name", ca.Cert.Subject.String(), "CN=my CA"},
		{"client name", expired.Leaf.Subject.String(), "CN=bob"},
		{"issuer", expired.Leaf.Issuer.String(), "CN=my CA"},
		{"server name", ca.Server(t).Leaf.Subject.String(), "CN=127.0.0.1"},
		{"self-signed server name", testcert.SelfSigned(t, testcert.Hosts("svc.test")).Leaf.Subject.String(), "CN=svc.test"},
		{"self-signed client name", testcert.SelfSigned(t).Leaf.Subject.String(), "CN=testcert"},
		{"not before", expired.Leaf.NotBefore.String(), notBefore.UTC().String()},
		{"not after", expired.Leaf.NotAfter.String(), notAfter.UTC().String()},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	if !key.PublicKey.Equal(expired.Leaf.PublicKey) || expired.PrivateKey != key {
		t.Error("Key: the certificate is not of the given key")
	}
}

// Written files load as the pair they were made from; "" skips a file.
func TestWriteAndThumbprint(t *testing.T) {
	c := testcert.NewCA(t).Server(t)
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	testcert.Write(t, c, certFile, keyFile)
	got, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Leaf.Equal(c.Leaf) {
		t.Fatal("the files hold another certificate")
	}
	testcert.Write(t, testcert.SelfSigned(t), "", filepath.Join(dir, "only.key"))
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Fatalf("files %v, want tls.crt, tls.key and only.key", entries)
	}
	// SHA-256 of "abc" (FIPS 180-2 B.1), base64url without padding.
	if got, want := testcert.Thumbprint([]byte("abc")), "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0"; got != want {
		t.Fatalf("Thumbprint %q, want %q", got, want)
	}
}
