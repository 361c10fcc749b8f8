package redistest

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"github.com/svckit/svc/internal/testcert"
)

// certs are the files of a test CA and of a server certificate it signed
// for 127.0.0.1, and the pool a client trusts them with.
type certs struct {
	caFile, certFile, keyFile string
	pool                      *x509.CertPool
}

// newCerts writes a CA and a server certificate for 127.0.0.1 (valid a
// day, so that no test outlives it) into dir.
func newCerts(t testing.TB, dir string) certs {
	t.Helper()
	ca := testcert.NewCA(t, testcert.Name("redistest CA"))
	c := certs{
		caFile:   filepath.Join(dir, "ca.pem"),
		certFile: filepath.Join(dir, "server.pem"),
		keyFile:  filepath.Join(dir, "server-key.pem"),
		pool:     testcert.Pool(ca.Cert),
	}
	testcert.Write(t, ca.Server(t, testcert.Hosts("127.0.0.1")), c.certFile, c.keyFile)
	if err := os.WriteFile(c.caFile, testcert.CertPEM(ca.Cert.Raw), 0o600); err != nil {
		t.Fatalf("redistest: TLS certificates: %v", err)
	}
	return c
}
