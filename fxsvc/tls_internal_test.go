package fxsvc

import (
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/svckit/svc/internal/testcert"
)

// pemPair makes a self-signed certificate valid from notBefore to notAfter
// and its key, as PEM.
func pemPair(t *testing.T, notBefore, notAfter time.Time) (certPEM, keyPEM []byte) {
	t.Helper()
	c := selfSigned(t, notBefore, notAfter)
	return testcert.CertPEM(c.Certificate...), testcert.KeyPEM(t, c)
}

// A replacement the reloader must not serve: the previous pair stays, and
// the refusal is logged once as a warning.
func TestCertReloaderKeepsThePreviousPairForABadReplacement(t *testing.T) {
	now := time.Now()
	interCert, _ := pemPair(t, now.Add(-time.Hour), now.Add(time.Hour)) // a PEM block to cut short
	for _, tc := range []struct {
		name string
		make func() (certPEM, keyPEM []byte)
	}{
		{"expired", func() ([]byte, []byte) { return pemPair(t, now.Add(-2*time.Hour), now.Add(-time.Hour)) }},
		{"chain cut short", func() ([]byte, []byte) {
			c, k := pemPair(t, now.Add(-time.Hour), now.Add(time.Hour))
			return append(c, interCert[:len(interCert)/2]...), k
		}},
		{"an intermediate that does not parse", func() ([]byte, []byte) {
			c, k := pemPair(t, now.Add(-time.Hour), now.Add(time.Hour))
			return append(c, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("junk")})...), k
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
			c, k := pemPair(t, now.Add(-time.Hour), now.Add(time.Hour))
			write := func(c, k []byte) {
				if err := os.WriteFile(certFile, c, 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(keyFile, k, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			write(c, k)
			core, logs := observer.New(zapcore.InfoLevel)
			clock := now
			r, err := newCertReloader(certFile, keyFile, zap.New(core), func() time.Time { return clock })
			if err != nil {
				t.Fatal(err)
			}
			first, _ := r.get(nil)
			write(tc.make())
			for range 2 {
				clock = clock.Add(r.interval)
				if got, _ := r.get(nil); got != first {
					t.Fatalf("the reloader serves the replacement (%v to %v, %d certificates)", got.Leaf.NotBefore, got.Leaf.NotAfter, len(got.Certificate))
				}
			}
			if n := logs.FilterLevelExact(zapcore.WarnLevel).Len(); n != 1 {
				t.Fatalf("%d warnings, want 1: %v", n, logs.All())
			}
		})
	}
}

// A whole chain written over the served pair replaces it.
func TestCertReloaderServesAWholeChain(t *testing.T) {
	now := time.Now()
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	c, k := pemPair(t, now.Add(-time.Hour), now.Add(time.Hour))
	if err := os.WriteFile(certFile, c, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, k, 0o600); err != nil {
		t.Fatal(err)
	}
	clock := now
	r, err := newCertReloader(certFile, keyFile, zap.NewNop(), func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	leaf, key := pemPair(t, now.Add(-time.Hour), now.Add(2*time.Hour))
	inter, _ := pemPair(t, now.Add(-time.Hour), now.Add(2*time.Hour))
	if err := os.WriteFile(certFile, append(leaf, inter...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(r.interval)
	got, _ := r.get(nil)
	if len(got.Certificate) != 2 || !got.Leaf.NotAfter.Equal(now.Add(2*time.Hour).Truncate(time.Second)) {
		t.Fatalf("served %d certificates until %v, want the new chain of 2", len(got.Certificate), got.Leaf.NotAfter)
	}
}
