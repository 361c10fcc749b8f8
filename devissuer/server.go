package devissuer

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// server is the listener every issuer of one Start shares: plain http for
// everything, and https (the development CA's certificate, client
// certificates asked for) for the mtls_endpoint_aliases.
type server struct {
	base     string // http://127.0.0.1:PORT
	mtlsBase string // https://127.0.0.1:PORT2
	ca       *devCA
	http     *http.Server
	mtls     *http.Server
	nonces   *nonceSource // nil unless Options.DPoPNonce
	replay   *replaySet

	mu      sync.RWMutex
	issuers map[string]*Issuer // by path
}

func startServer(opts Options) (*server, error) {
	ca, err := newDevCA()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("devissuer: listen on %s (Options.Addr): %w", opts.Addr, err)
	}
	host, _, _ := net.SplitHostPort(ln.Addr().String())
	serverCert, err := ca.serverCertificate(host)
	if err != nil {
		ln.Close()
		return nil, err
	}
	tlsLn, err := tls.Listen("tcp", net.JoinHostPort(host, "0"), &tls.Config{
		Certificates: []tls.Certificate{serverCert},
		ClientAuth:   tls.VerifyClientCertIfGiven, // tls_client_auth and certificate binding, never required
		ClientCAs:    ca.pool,
		MinVersion:   tls.VersionTLS12,
	})
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("devissuer: listen for the mTLS endpoints: %w", err)
	}
	s := &server{
		base:     "http://" + ln.Addr().String(),
		mtlsBase: "https://" + tlsLn.Addr().String(),
		ca:       ca,
		replay:   newReplaySet(),
		issuers:  map[string]*Issuer{},
	}
	if opts.DPoPNonce {
		s.nonces = newNonceSource()
	}
	s.http = &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second}
	s.mtls = &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.http.Serve(ln) }()    // ends at close
	go func() { _ = s.mtls.Serve(tlsLn) }() // ends at close
	return s, nil
}

func (s *server) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return errors.Join(s.http.Shutdown(ctx), s.mtls.Shutdown(ctx))
}

// add makes an issuer at path with its own key and first client.
func (s *server) add(path, tenant string, opts Options) (*Issuer, error) {
	iss := &Issuer{
		URL:          s.base + path,
		Audience:     withDefault(opts.Audience, "svc-example"),
		ClientID:     withDefault(opts.ClientID, "example-client"),
		ClientSecret: withDefault(opts.ClientSecret, "example-secret"),
		srv:          s,
		path:         path,
		tenant:       tenant,
		clients:      map[string]*Client{},
		tokens:       newTokenStore(),
		codes:        map[string]*authCode{},
	}
	if err := iss.Rotate(); err != nil {
		return nil, err
	}
	iss.clients[iss.ClientID] = &Client{ID: iss.ClientID, Secret: iss.ClientSecret}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.issuers[path]; taken {
		return nil, fmt.Errorf("devissuer: an issuer already serves %s", s.base+path)
	}
	s.issuers[path] = iss
	return iss, nil
}

func (s *server) lookup(path string) *Issuer {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.issuers[path]
}

// ServeHTTP finds the issuer by the path before the endpoint's name:
// /partner/token is the token endpoint of the issuer at /partner. RFC
// 8414 puts the issuer's path after the well-known name instead.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if rest, ok := strings.CutPrefix(p, wellKnownOAuth); ok {
		s.serve(w, r, rest, "discovery")
		return
	}
	if rest, ok := strings.CutSuffix(p, wellKnownOpenID); ok {
		s.serve(w, r, rest, "discovery")
		return
	}
	cut := strings.LastIndexByte(p, '/')
	if cut < 0 {
		http.NotFound(w, r)
		return
	}
	s.serve(w, r, p[:cut], p[cut+1:])
}

func (s *server) serve(w http.ResponseWriter, r *http.Request, path, endpoint string) {
	iss := s.lookup(path)
	if iss == nil {
		oauthError(w, http.StatusNotFound, "not_found", "no issuer at "+s.base+path)
		return
	}
	e, ok := endpoints[endpoint]
	if !ok {
		oauthError(w, http.StatusNotFound, "not_found", "no endpoint "+endpoint+" (see "+iss.URL+wellKnownOpenID+")")
		return
	}
	if r.Method != e.method && !(e.method == http.MethodGet && r.Method == http.MethodHead) && !(endpoint == "authorize" && r.Method == http.MethodPost) {
		w.Header().Set("Allow", e.method)
		oauthError(w, http.StatusMethodNotAllowed, "invalid_request", endpoint+" takes "+e.method)
		return
	}
	e.handle(iss, w, r)
}

// endpoints are what each issuer serves, by the last segment of the path.
var endpoints = map[string]struct {
	method string
	handle func(*Issuer, http.ResponseWriter, *http.Request)
}{
	"discovery":  {http.MethodGet, (*Issuer).discovery},
	"jwks":       {http.MethodGet, (*Issuer).jwks},
	"token":      {http.MethodPost, (*Issuer).token},
	"mint":       {http.MethodGet, (*Issuer).mint},
	"introspect": {http.MethodPost, (*Issuer).introspect},
	"revoke":     {http.MethodPost, (*Issuer).revoke},
	"authorize":  {http.MethodGet, (*Issuer).authorize},
	"rotate":     {http.MethodPost, (*Issuer).rotate},
}

const (
	wellKnownOAuth  = "/.well-known/oauth-authorization-server"
	wellKnownOpenID = "/.well-known/openid-configuration"
)

// endpointURL is where a client reaches endpoint of i, over r's listener
// (the mTLS one or the plain one), for DPoP's htu and assertions' aud.
func (i *Issuer) endpointURL(r *http.Request, endpoint string) string {
	if r != nil && r.TLS != nil {
		return i.srv.mtlsBase + i.path + "/" + endpoint
	}
	return i.URL + "/" + endpoint
}
