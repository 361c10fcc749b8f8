package oauthclient

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
)

// The token_endpoint_auth_method names of RFC 8705 §2.
const (
	methodTLS           = "tls_client_auth"
	methodSelfSignedTLS = "self_signed_tls_client_auth"
)

// TLSClientAuth authenticates with the client's TLS certificate (RFC 8705
// §2): the token request carries client_id and no secret, and the
// certificate is presented in the TLS handshake with the token endpoint.
// Both methods of RFC 8705 send exactly this: tls_client_auth (the server
// checks the certificate's subject against a CA) and
// self_signed_tls_client_auth (the server checks it against the client's
// registered keys). SVC_OAUTHCLIENT_AUTH_METHOD names one, for errors;
// without it the server's metadata does.
//
// certFile and keyFile hold the PEM certificate (chain) and its private
// key; an empty path takes SVC_OAUTHCLIENT_TLS_CERT_FILE or
// SVC_OAUTHCLIENT_TLS_KEY_FILE. Both are read again at every token
// request, as [AssertionFile] reads its file, so a rotated certificate is
// used from the next fetch on.
//
// With the server's mtls_endpoint_aliases (RFC 8705 §5) the client sends
// token requests to the alias. A token the server binds to the
// certificate (cnf.x5t#S256, §3) is sent by [Pattern.Transport] over a
// connection presenting the certificate the token was fetched with; an
// opaque token is taken as bound. The token endpoint must be https.
//
// New refuses it when a file is missing or unreadable, when the two do not
// form a key pair, and when [HTTPClient] gives a Transport that is not an
// *http.Transport, to which the certificate could not be added.
func TLSClientAuth(certFile, keyFile string) ClientAuth {
	return tlsAuth{certFile: certFile, keyFile: keyFile}
}

type tlsAuth struct {
	certFile, keyFile string
	name              string // the method SVC_OAUTHCLIENT_AUTH_METHOD named; "" to read the metadata
}

func (a tlsAuth) applyClient(c *clientConfig) error {
	if a.certFile != "" {
		c.tlsCertFile = a.certFile
	}
	if a.keyFile != "" {
		c.tlsKeyFile = a.keyFile
	}
	c.auth = a
	return nil
}

func (a tlsAuth) check(cfg *clientConfig) error {
	switch {
	case cfg.tlsCertFile == "":
		return &ConfigError{Setting: clientEnvPrefix + "TLS_CERT_FILE", Problem: methodTLS + " needs the client certificate: set it or pass a path to oauthclient.TLSClientAuth"}
	case cfg.tlsKeyFile == "":
		return &ConfigError{Setting: clientEnvPrefix + "TLS_KEY_FILE", Problem: methodTLS + " needs the certificate's private key: set it or pass a path to oauthclient.TLSClientAuth"}
	}
	if cfg.httpClient != nil {
		if httpTransport(cfg.httpClient.Transport) == nil {
			return &ConfigError{Setting: "oauthclient.HTTPClient", Problem: "the client certificate of " + methodTLS + " is added to an *http.Transport; give an http.Client whose Transport is one (or nil)"}
		}
	}
	_, err := (&clientCert{certFile: cfg.tlsCertFile, keyFile: cfg.tlsKeyFile}).load()
	return err
}

// method names the registration the certificate is checked against: the
// one the environment named, else the one the metadata lists alone.
func (a tlsAuth) method(meta *metadata) string {
	if a.name != "" {
		return a.name
	}
	if meta != nil && !slices.Contains(meta.authMethods, methodTLS) && slices.Contains(meta.authMethods, methodSelfSignedTLS) {
		return methodSelfSignedTLS
	}
	return methodTLS
}

func (a tlsAuth) rejectHint(meta *metadata) string {
	return "the client authenticated with its TLS certificate (" + a.method(meta) + "); check " + clientEnvPrefix +
		"CLIENT_ID and that the certificate in " + clientEnvPrefix + "TLS_CERT_FILE is the one registered for the client (its subject for tls_client_auth, its key for self_signed_tls_client_auth)"
}

// authenticate adds the client_id: the certificate itself goes in the
// handshake, which only https carries.
func (a tlsAuth) authenticate(_ context.Context, c *Client, meta *metadata, _ http.Header, form url.Values) error {
	if !strings.HasPrefix(strings.ToLower(meta.tokenEndpoint), "https://") {
		return &ConfigError{Setting: clientEnvPrefix + "TOKEN_ENDPOINT", Problem: a.method(meta) + " presents the client certificate in TLS: the token endpoint must be https"}
	}
	form.Set("client_id", c.clientID)
	return nil
}

// httpTransport is rt as an *http.Transport (http.DefaultTransport for
// nil), or nil when it is another RoundTripper.
func httpTransport(rt http.RoundTripper) *http.Transport {
	if rt == nil {
		rt = http.DefaultTransport
	}
	t, _ := rt.(*http.Transport)
	return t
}

// clientCert is the client's certificate and key files.
type clientCert struct {
	certFile, keyFile string

	mu  sync.Mutex
	cur *certificate // the pair last read; kept while the files are unchanged
}

// certificate is one certificate and key, as read. Tokens fetched over it
// are bound to it, and carry it to the requests that send them.
type certificate struct {
	tls tls.Certificate
	sum [sha256.Size]byte // of both files, to tell a rotation
}

// load reads both files. It returns the certificate read before while
// their content is the same, so that transports and tokens built for it
// stay in use. Its errors name the setting and never repeat key material.
func (cc *clientCert) load() (*certificate, error) {
	certPEM, err := os.ReadFile(cc.certFile)
	if err != nil {
		return nil, &ConfigError{Setting: clientEnvPrefix + "TLS_CERT_FILE", Problem: "cannot read the certificate file: " + err.Error()}
	}
	keyPEM, err := os.ReadFile(cc.keyFile)
	if err != nil {
		return nil, &ConfigError{Setting: clientEnvPrefix + "TLS_KEY_FILE", Problem: "cannot read the key file: " + err.Error()}
	}
	h := sha256.New()
	h.Write(certPEM)
	h.Write([]byte{0})
	h.Write(keyPEM)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	cc.mu.Lock()
	cur := cc.cur
	cc.mu.Unlock()
	if cur != nil && cur.sum == sum {
		return cur, nil
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		// tls's messages name what is wrong, never the key.
		return nil, &ConfigError{Setting: clientEnvPrefix + "TLS_CERT_FILE", Problem: "the certificate and " + clientEnvPrefix + "TLS_KEY_FILE do not form a key pair: " + err.Error()}
	}
	c := &certificate{tls: pair, sum: sum}
	cc.mu.Lock()
	cc.cur = c
	cc.mu.Unlock()
	return c, nil
}

// maxCertTransports bounds the certificates a base keeps a transport for:
// the current one and those before it, whose tokens are still being sent
// after a rotation until they expire.
const maxCertTransports = 3

// certTransports derives from one base transport a transport per
// certificate, the most recently used first. Tokens fetched before and
// after a rotation are bound to different certificates and alternate:
// each keeps its transport and its pooled connections, so no request pays
// a new handshake for the switch. A certificate's idle connections are
// closed when it is evicted, and every one's at Close.
type certTransports struct {
	base *http.Transport

	mu   sync.Mutex
	kept []certTransport
}

type certTransport struct {
	sum  [sha256.Size]byte // the certificate's, as read
	rt   *http.Transport
	wrap http.RoundTripper // rt as the caller uses it (traced for APIs)
}

// get returns the transport for c; wrap, when not nil, wraps a new one.
func (t *certTransports) get(c *certificate, wrap func(http.RoundTripper) http.RoundTripper) http.RoundTripper {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, k := range t.kept {
		if k.sum == c.sum {
			copy(t.kept[1:i+1], t.kept[:i])
			t.kept[0] = k
			return k.wrap
		}
	}
	rt := t.base.Clone()
	if rt.TLSClientConfig == nil {
		rt.TLSClientConfig = &tls.Config{}
	}
	rt.TLSClientConfig.Certificates = nil
	// GetClientCertificate presents the certificate whatever CAs the
	// server names: a self-signed one (RFC 8705 §2.2) is in no list.
	pair := c.tls
	rt.TLSClientConfig.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }
	k := certTransport{sum: c.sum, rt: rt, wrap: rt}
	if wrap != nil {
		k.wrap = wrap(rt)
	}
	if len(t.kept) == maxCertTransports {
		t.kept[len(t.kept)-1].rt.CloseIdleConnections()
		t.kept = t.kept[:len(t.kept)-1]
	}
	t.kept = append([]certTransport{k}, t.kept...)
	return k.wrap
}

// closeIdle closes the idle connections of every kept transport.
func (t *certTransports) closeIdle() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range t.kept {
		k.rt.CloseIdleConnections()
	}
}
