package fxsvc

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"
)

// SetShutdownSleep replaces the timer of s's shutdown delay, so that a
// test decides when the delay ends. Call it before the app stops.
func SetShutdownSleep(s *Server, sleep func(ctx context.Context, d time.Duration)) { s.sleep = sleep }

// ServerMaxConnections is s's cap on open connections.
func ServerMaxConnections(s *Server) int { return s.limit.max }

// ServerDrainTimeout is s's bound on the wait for in-flight requests on stop.
func ServerDrainTimeout(s *Server) time.Duration { return s.drain }

// ServerShutdownDelay is how long s keeps serving on stop before it drains.
func ServerShutdownDelay(s *Server) time.Duration { return s.delay }

// Stopping is the channel ShuttingDown returns to the server's requests.
func Stopping(s *Server) <-chan struct{} { return s.stopping }

// SetTLSReloadInterval sets how often the certificate files are checked,
// for servers started afterwards; the returned func restores it.
func SetTLSReloadInterval(d time.Duration) (restore func()) {
	old := tlsReloadInterval
	tlsReloadInterval = d
	return func() { tlsReloadInterval = old }
}

// WriteSelfSigned writes a fresh self-signed ECDSA certificate for
// 127.0.0.1 and its key as PEM files certName and keyName under dir, and
// returns the certificate. Tests only: never for a deployment.
func WriteSelfSigned(t testing.TB, dir, certName, keyName string) *x509.Certificate {
	t.Helper()
	der, keyDER := selfSigned(t, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	cert, _ := x509.ParseCertificate(der)
	// Written beside and renamed into place, as a secret mount or certbot
	// does, so a reader never sees half a file.
	for name, block := range map[string]*pem.Block{certName: {Type: "CERTIFICATE", Bytes: der}, keyName: {Type: "PRIVATE KEY", Bytes: keyDER}} {
		if name == "" {
			continue
		}
		tmp := filepath.Join(dir, "."+name+".tmp")
		if err := os.WriteFile(tmp, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return cert
}

// selfSigned makes a self-signed ECDSA certificate for svc.test and
// 127.0.0.1, valid from notBefore to notAfter, and its PKCS #8 key, as DER.
func selfSigned(t testing.TB, notBefore, notAfter time.Time) (der, keyDER []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "svc test"},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		DNSNames:     []string{"svc.test"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if der, err = x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key); err != nil {
		t.Fatal(err)
	}
	if keyDER, err = x509.MarshalPKCS8PrivateKey(key); err != nil {
		t.Fatal(err)
	}
	return der, keyDER
}

// NewCertReloader returns what a server with certFile and keyFile would
// serve on a handshake when the clock reads now(), checking the files at
// most once per interval, for tests of the reload without a server.
func NewCertReloader(certFile, keyFile string, now func() time.Time, interval time.Duration) (func() *x509.Certificate, error) {
	r, err := newCertReloader(certFile, keyFile, zap.NewNop(), now)
	if err != nil {
		return nil, err
	}
	r.interval = interval
	return func() *x509.Certificate {
		c, _ := r.get(nil)
		return c.Leaf
	}, nil
}

// ShedCounts are the connections s has shed so far: idle ones closed,
// answers that declined keep-alive, new ones refused at the cap.
func ShedCounts(s *Server) (idle, declined, refused int64) {
	c := s.limit.counts()
	return c.idle, c.declined, c.refused
}

// IdleConnections is how many of s's connections wait idle for their next
// request.
func IdleConnections(s *Server) int {
	s.limit.mu.Lock()
	defer s.limit.mu.Unlock()
	return s.limit.idle.Len()
}

// DefaultMaxConnections is the connection cap for a descriptor limit.
var DefaultMaxConnections = defaultMaxConnections

// OpenConnections is how many connections s holds open.
func OpenConnections(s *Server) int {
	s.limit.mu.Lock()
	defer s.limit.mu.Unlock()
	return s.limit.open
}
