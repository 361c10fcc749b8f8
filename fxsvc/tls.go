package fxsvc

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"go.uber.org/zap"
)

// tlsReloadInterval is how often, at most, the certificate files are
// checked for a change: one stat of each per interval, on a handshake.
// A variable so that tests can check on every handshake.
var tlsReloadInterval = 10 * time.Second

// tlsSettings names what sets the certificate files, for errors.
const tlsSettings = "SVC_HTTP_TLS_CERT_FILE/SVC_HTTP_TLS_KEY_FILE"

// TLSFiles serves HTTPS with the PEM certificate chain in certFile and the
// private key in keyFile, overriding SVC_HTTP_TLS_CERT_FILE and
// SVC_HTTP_TLS_KEY_FILE. The pair is loaded at start (a pair that does not
// load fails start naming both files) and re-read when either file
// changes, checked at most every 10 s: a renewed certificate (a rotated
// Kubernetes secret, certbot) is served without a restart, and a
// replacement that does not load (a certificate of the chain that does
// not parse, a PEM block cut short) or whose certificate has expired keeps
// the previous one with a warning.
// TLS 1.2 is the least version accepted; HTTP/2 is offered. Giving one
// file without the other fails the app's build.
func TLSFiles(certFile, keyFile string) ServeOption {
	return func(c *serveConfig) { c.TLSCertFile, c.TLSKeyFile = certFile, keyFile }
}

// TLSClientCertificates asks every TLS client for a certificate,
// overriding SVC_HTTP_TLS_CLIENT_CERTIFICATES (true or false): for tokens
// bound to one (authn.CertificateBound, RFC 8705). A client without one
// is still served, and the certificate is not verified against any CA (a
// self-signed one is what RFC 8705 §2.2 binds to); the client proves it
// holds the certificate's key in the handshake. Refused without
// TLSFiles, where it would be ignored.
func TLSClientCertificates() ServeOption {
	return func(c *serveConfig) { c.TLSClientCerts = true }
}

// checkTLS refuses one file without the other, and client certificates
// without TLS.
func (c *serveConfig) checkTLS() error {
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		return &SettingError{Setting: tlsSettings, Problem: "set both the certificate and the key file (or fxsvc.TLSFiles with both), or neither for plain HTTP"}
	}
	if c.TLSClientCerts && c.TLSCertFile == "" {
		return &SettingError{Setting: "SVC_HTTP_TLS_CLIENT_CERTIFICATES/fxsvc.TLSClientCertificates",
			Problem: "client certificates need TLS: set " + tlsSettings + " (or fxsvc.TLSFiles) too"}
	}
	return nil
}

// loadTLS loads the certificate pair, when configured, into the server's
// TLS configuration. Called at start, before listening.
func (s *Server) loadTLS(log *zap.Logger) error {
	if s.tlsFiles[0] == "" {
		return nil
	}
	r, err := newCertReloader(s.tlsFiles[0], s.tlsFiles[1], log, time.Now)
	if err != nil {
		return err
	}
	s.srv.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: r.get}
	if s.tlsClientCerts {
		s.srv.TLSConfig.ClientAuth = tls.RequestClientCert
	}
	return nil
}

// serveOn serves HTTPS when a certificate is loaded, else plain HTTP.
func (s *Server) serveOn(ln net.Listener) error {
	if s.srv.TLSConfig != nil {
		// The certificate comes from GetCertificate: no file names here.
		return s.srv.ServeTLS(ln, "", "")
	}
	return s.srv.Serve(ln)
}

// pairStamp tells whether the files changed: a digest of each. Contents,
// not modification times: a file rewritten within the clock's resolution,
// or restored with its old time, is still seen.
type pairStamp [2][sha256.Size]byte

// certReloader serves the pair last loaded from its two files, re-loading
// it when a check (at most once per interval) finds either file changed.
type certReloader struct {
	certFile, keyFile string
	log               *zap.Logger
	now               func() time.Time
	interval          time.Duration

	mu      sync.Mutex
	cert    *tls.Certificate
	loaded  pairStamp // the files of the pair served
	bad     pairStamp // the files of a pair that did not load, warned about once
	checked time.Time
}

func newCertReloader(certFile, keyFile string, log *zap.Logger, now func() time.Time) (*certReloader, error) {
	r := &certReloader{certFile: certFile, keyFile: keyFile, log: log, now: now, interval: tlsReloadInterval}
	c, stamp, err := r.load()
	if err != nil {
		return nil, &SettingError{Setting: tlsSettings, Problem: fmt.Sprintf("loading the certificate %s and key %s: %v", certFile, keyFile, err)}
	}
	r.cert, r.loaded, r.checked = c, stamp, now()
	return r, nil
}

// read returns both files' contents and their stamp.
func (r *certReloader) read() (certPEM, keyPEM []byte, stamp pairStamp, err error) {
	if certPEM, err = os.ReadFile(r.certFile); err != nil {
		return nil, nil, stamp, err
	}
	if keyPEM, err = os.ReadFile(r.keyFile); err != nil {
		return nil, nil, stamp, err
	}
	return certPEM, keyPEM, pairStamp{sha256.Sum256(certPEM), sha256.Sum256(keyPEM)}, nil
}

// load reads and parses the pair.
func (r *certReloader) load() (*tls.Certificate, pairStamp, error) {
	certPEM, keyPEM, stamp, err := r.read()
	if err != nil {
		return nil, stamp, err
	}
	c, err := parsePair(certPEM, keyPEM)
	return c, stamp, err
}

// parsePair parses a PEM certificate chain and key. Its errors name the
// mismatch or the bad block, never key material. tls.X509KeyPair parses
// only the leaf and stops quietly at a block cut short: a chain read while
// it was being written would serve the leaf without its intermediates, so
// every certificate must parse and no block may be left unfinished.
func parsePair(certPEM, keyPEM []byte) (*tls.Certificate, error) {
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	rest := certPEM
	for {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
	}
	if bytes.Contains(rest, []byte("-----BEGIN")) {
		return nil, errors.New("the certificate file ends in a PEM block cut short")
	}
	for i, der := range c.Certificate {
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, fmt.Errorf("certificate %d of the chain: %w", i+1, err)
		}
		if i == 0 && c.Leaf == nil {
			c.Leaf = cert
		}
	}
	return &c, nil
}

// get is the tls.Config.GetCertificate of the server.
func (r *certReloader) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if now.Sub(r.checked) >= r.interval {
		r.checked = now
		r.reload()
	}
	return r.cert, nil
}

// reload replaces the served pair when the files changed and load. A file
// missing for a moment (a rotation in progress) is tried again at the next
// check; a pair that does not load is warned about once.
func (r *certReloader) reload() {
	certPEM, keyPEM, stamp, err := r.read()
	if err != nil || stamp == r.loaded || stamp == r.bad {
		return
	}
	c, err := parsePair(certPEM, keyPEM)
	if err == nil && !r.now().Before(c.Leaf.NotAfter) {
		// An expired certificate never becomes valid again: a stale
		// copy restored over a renewed one must not replace it.
		err = fmt.Errorf("the certificate expired at %v", c.Leaf.NotAfter)
	}
	if err != nil {
		r.bad = stamp
		r.log.Warn("svc: the TLS certificate files changed but do not load; serving the previous certificate ("+tlsSettings+")",
			zap.String("tls.cert_file", r.certFile), zap.String("tls.key_file", r.keyFile), zap.Error(err))
		return
	}
	r.cert, r.loaded, r.bad = c, stamp, pairStamp{}
	r.log.Info("svc: TLS certificate reloaded",
		zap.String("tls.cert_file", r.certFile), zap.Time("tls.server.not_after", c.Leaf.NotAfter))
}
