package fxsvc

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/svckit/svc/internal/testcert"
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
// svc.test and 127.0.0.1 and its key as PEM files certName and keyName
// under dir (skipping a name that is ""), and returns the certificate.
// Tests only: never for a deployment.
func WriteSelfSigned(t testing.TB, dir, certName, keyName string) *x509.Certificate {
	t.Helper()
	c := selfSigned(t, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	path := func(name string) string {
		if name == "" {
			return ""
		}
		return filepath.Join(dir, name)
	}
	testcert.Write(t, c, path(certName), path(keyName))
	return c.Leaf
}

// selfSigned makes a self-signed certificate for svc.test and 127.0.0.1,
// valid from notBefore to notAfter.
func selfSigned(t testing.TB, notBefore, notAfter time.Time) tls.Certificate {
	return testcert.SelfSigned(t, testcert.Name("svc test"), testcert.Hosts("svc.test", "127.0.0.1"), testcert.Valid(notBefore, notAfter))
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
